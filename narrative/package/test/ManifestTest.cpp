// manifest.json: its schema, round trip and the errors that name the field.

#include "narrative/JsonSchema.h"
#include "narrative/package/Manifest.h"
#include "narrative/package/PackageError.h"
#include "PackageTestSupport.h"

#include <gtest/gtest.h>

using namespace atrium::package;
using namespace atrium::package::test;
using nlohmann::json;

namespace {

/// The sample manifest as JSON, with its files declared.
json sampleJson() {
    Manifest m = sampleManifest();
    m.files = {{"media/mitral.svg", "image/svg+xml"}, {"media/logo.svg", "image/svg+xml"}};
    return json::parse(writeManifest(m));
}

std::string parseError(const json& j) {
    return errorOf([&] { parseManifest(j.dump()); }, PackageError::Kind::BadFile);
}

} // namespace

TEST(Manifest, RoundTripsEveryField) {
    Manifest m = sampleManifest();
    m.description = "A tour of the left heart.";
    m.files = {{"media/mitral.svg", "image/svg+xml"}, {"media/logo.svg", "image/svg+xml"}, {"narratives.json", "application/json"}};
    m.narratives = "narratives.json";
    m.resources[0].ignoreTarget = true;
    m.resources[0].autoLaunch = atrium::narrative::AutoLaunch::TextOnly;
    m.resources[1].reposition = true;
    m.resources[1].yearFrom = 1543;
    m.resources[1].yearTo = 1555;
    m.resources[1].copyright = atrium::narrative::CopyrightStatus::PublicDomain;
    m.resources[2].global = true;
    m.restrictions = {true, true, true, true, true, atrium::narrative::Resolution{1920, 1080},
                      atrium::narrative::parseDate("2027-06-30")};
    m.branding.link = "https://example.org";
    const Manifest back = parseManifest(writeManifest(m));
    EXPECT_EQ(back, m);

    Manifest series = m;
    series.heart = {HeartSpec::Source::Meshes, "", {"heart/p0.vtp", "heart/p1.vtp"}, 0.9, std::nullopt};
    series.files.push_back({"heart/p0.vtp", "application/vnd.vtk.polydata"});
    series.files.push_back({"heart/p1.vtp", "application/vnd.vtk.polydata"});
    EXPECT_EQ(parseManifest(writeManifest(series)), series);
}

TEST(Manifest, ErrorsNameTheField) {
    json j = sampleJson();
    j["resources"][1]["radius"] = 0;
    EXPECT_NE(parseError(j).find("/resources/1/radius"), std::string::npos);

    j = sampleJson();
    j["resources"][0]["colour"] = "red";
    EXPECT_NE(parseError(j).find("/resources/0/colour: unknown field"), std::string::npos);

    j = sampleJson();
    j["resources"][2]["id"] = "mitral-text";
    EXPECT_NE(parseError(j).find("'mitral-text' is used twice"), std::string::npos);

    j = sampleJson();
    j["resources"][2]["category"] = "Chambers";
    EXPECT_NE(parseError(j).find("/resources/2/category"), std::string::npos);

    j = sampleJson();
    j["restrictions"] = {{"expires", "2027-02-30"}};
    EXPECT_NE(parseError(j).find("/restrictions/expires"), std::string::npos);

    j = sampleJson();
    j["heart"] = {{"source", "phantom"}, {"preset", "horse"}};
    EXPECT_NE(parseError(j).find("/heart"), std::string::npos);

    j = sampleJson();
    j["files"][0]["entry"] = "../../etc/passwd";
    EXPECT_NE(parseError(j).find("/files/0/entry"), std::string::npos);

    j = sampleJson();
    j["files"][0]["entry"] = "signature.json";
    EXPECT_NE(parseError(j).find("reserved"), std::string::npos);

    j = sampleJson();
    j["restrictions"] = {{"brandingRequired", true}};
    j.erase("branding");
    EXPECT_NE(parseError(j).find("/branding"), std::string::npos);
}

TEST(Manifest, UnknownVersionAndMalformedJsonAreNamed) {
    json j = sampleJson();
    j["version"] = 2;
    EXPECT_NE(parseError(j).find("schema version 2 is not supported"), std::string::npos);
    const std::string message =
        errorOf([] { parseManifest(R"({"format": "atrium-content", "version": 1,)", "pack.atrium: manifest.json"); },
                PackageError::Kind::BadFile);
    EXPECT_EQ(message.rfind("pack.atrium: manifest.json: not valid JSON", 0), 0u) << message;
    EXPECT_NE(parseError(json::array()).find("must be a JSON object"), std::string::npos);
}

TEST(Manifest, WritingRefusesWhatWouldNotReadBack) {
    Manifest m = sampleManifest();
    m.resources[1].media.clear(); // an image without its picture
    EXPECT_NE(errorOf([&] { writeManifest(m); }, PackageError::Kind::BadFile).find("needs 'media'"), std::string::npos);
}

TEST(Manifest, ReferencesListEveryFileUsedOnce) {
    Manifest m = sampleManifest();
    m.narratives = "narratives.json";
    m.resources.push_back(m.resources[1]);
    m.resources.back().id = "again";
    const auto refs = m.references();
    ASSERT_EQ(refs.size(), 3u);
    EXPECT_EQ(refs[0].first, "narratives.json");
    EXPECT_EQ(refs[1].first, "media/mitral.svg");
    EXPECT_EQ(refs[1].second, "resource 'mitral-image'");
    EXPECT_EQ(refs[2].first, "media/logo.svg");
}

TEST(Manifest, TheShippedSchemaIsTheOneInTheRepository) {
    const json& schema = manifestSchema();
    EXPECT_EQ(schema.value("title", ""), "Atrium content manifest, version 1");
    EXPECT_NO_THROW(atrium::narrative::JsonSchema{schema});
    EXPECT_EQ(schema, json::parse(readAll(ATRIUM_MANIFEST_SCHEMA)));
}
