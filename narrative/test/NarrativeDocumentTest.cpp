// The narrative document: JSON round trip, the shipped schema, and one error per kind
// of malformed input, each naming the field (as a JSON pointer) or the file; atomic save.

#include "narrative/NarrativeDocument.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>

using namespace atrium::narrative;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

/// A document with every field set to something other than its default.
NarrativeDocument fullDocument() {
    Narrative n;
    n.title = "Through the left heart";
    n.author = "A. Lecturer";
    n.description = "From the atrium through the mitral valve to the aorta.";
    Node a;
    a.title = "Left atrium";
    a.pose = CameraPose({-60.5, 12.25, 30}, 0.75, -0.2);
    a.dwell = 6;
    a.fadeIn = 1;
    a.fadeOut = 0.25;
    OverlayItem text;
    text.kind = OverlayKind::Text;
    text.rect = {0.05, 0.7, 0.5, 0.2};
    text.z = 2;
    text.text = "<b>Left atrium</b>: blood from the lungs";
    OverlayItem image;
    image.kind = OverlayKind::Image;
    image.media = "media/atrium.png";
    OverlayItem video;
    video.kind = OverlayKind::Video;
    video.media = "media/echo.mp4";
    video.startOffset = 2.5;
    video.volume = 0.5;
    video.loop = true;
    OverlayItem label;
    label.kind = OverlayKind::Label3D;
    label.rect = {0.02, -0.08, 0.2, 0.06};
    label.text = "Mitral valve";
    label.anchor = {1.5, -2, 40};
    a.overlays = {text, image, video, label};
    a.thumbnail = "iVBORw0KGgo=";
    a.view.heartRunning = false;
    a.view.heartPhase = 0.4;
    a.view.heartRateBpm = 72;
    a.view.colouring = BloodColouring::Speed;
    a.view.fluid = FluidDrawing::Surface;
    a.view.wallOpacity = 0.2;
    a.view.clipping = Clipping{true, -0.25};
    a.view.wireframe = true;
    a.view.bloodVisible = false;
    Node b;
    b.title = "Aorta";
    b.pose = CameraPose({0, 80, 10}, -3.0, 0.5);
    b.waitForKey = true;
    OverlayItem sound;
    sound.kind = OverlayKind::Sound;
    sound.media = "media/s1-s2.ogg";
    b.overlays = {sound};
    insertNode(n, 0, a);
    insertNode(n, 1, b, Transition{4.5, 0.35});
    NarrativeDocument d;
    d.narratives = {n, Narrative{}};
    d.narratives[1].title = "Empty for now";
    return d;
}

/// The message of the error that reading `j` throws, or "" when it reads.
std::string errorOf(const json& j, const MediaExists& media = {}) {
    try {
        fromJson(j, "doc.json", media);
    } catch (const NarrativeDocumentError& e) {
        return e.what();
    }
    return "";
}

std::string readText(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("atrium-narr-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                                 "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    TempDir() {
        fs::remove_all(path);
        fs::create_directories(path / "media");
    }
    ~TempDir() { fs::remove_all(path); }
};

} // namespace

TEST(NarrativeDocument, JsonRoundTrip) {
    const NarrativeDocument d = fullDocument();
    const json j = toJson(d);
    EXPECT_EQ(j["format"], "atrium-narratives");
    EXPECT_EQ(j["version"], 1);
    EXPECT_EQ(fromJson(j, "memory"), d);
    // Through text as well (numbers keep every bit).
    EXPECT_EQ(parseNarrativeDocument(j.dump(), "memory"), d);
    EXPECT_EQ(parseNarrativeDocument(j.dump(2), "memory"), d);
}

TEST(NarrativeDocument, OptionalFieldsTakeTheirDefaults) {
    const json j = json::parse(R"({"format": "atrium-narratives", "version": 1, "narratives": [
        {"title": "t", "nodes": [{"pose": {"position": [1, 2, 3], "yaw": 0, "pitch": 0}}], "transitions": []}]})");
    const NarrativeDocument d = fromJson(j, "min.json");
    ASSERT_EQ(d.narratives.size(), 1u);
    const Node& n = d.narratives[0].nodes.at(0);
    EXPECT_EQ(n.dwell, Node{}.dwell);
    EXPECT_EQ(n.fadeIn, Node{}.fadeIn);
    EXPECT_FALSE(n.waitForKey);
    EXPECT_TRUE(n.view.empty()) << "an absent view keeps what is on screen";
    EXPECT_EQ(n.pose.position(), (Vec3{1, 2, 3}));
}

TEST(NarrativeDocument, ShippedSchemaIsTheOneChecked) {
    const json shipped = json::parse(readText(fs::path(ATRIUM_SOURCE_DIR) / "narrative/schema/narratives.schema.json"));
    EXPECT_EQ(shipped, narrativeDocumentSchema());
    // And what we write conforms to it.
    EXPECT_EQ(errorOf(toJson(fullDocument())), "");
}

TEST(NarrativeDocument, UnknownVersionIsNamed) {
    json j = toJson(fullDocument());
    j["version"] = 2;
    j["narratives"][0]["someFieldOfVersion2"] = true;
    EXPECT_EQ(errorOf(j), "doc.json: /version: unsupported version 2 (this Atrium reads version 1)");
    j["version"] = "1";
    EXPECT_EQ(errorOf(j), "doc.json: /version: expected an integer, got string");
    j.erase("version");
    EXPECT_EQ(errorOf(j), "doc.json: /version: required in the document but missing");
    j = toJson(fullDocument());
    j["format"] = "atrium-scene";
    EXPECT_EQ(errorOf(j), "doc.json: /format: must be \"atrium-narratives\", got \"atrium-scene\"");
}

TEST(NarrativeDocument, WrongTypesAndValuesNameTheField) {
    const json good = toJson(fullDocument());
    auto withChange = [&](const json::json_pointer& at, const json& value) {
        json j = good;
        j[at] = value;
        return errorOf(j);
    };
    using P = json::json_pointer;
    EXPECT_EQ(withChange(P("/narratives/0/nodes/0/dwell"), "3"),
              "doc.json: /narratives/0/nodes/0/dwell: expected number, got string");
    EXPECT_EQ(withChange(P("/narratives/0/nodes/1/pose/position"), json::array({1, 2})),
              "doc.json: /narratives/0/nodes/1/pose/position: must have at least 3 items, has 2");
    EXPECT_EQ(withChange(P("/narratives/0/nodes/0/overlays/1/kind"), "gif"),
              "doc.json: /narratives/0/nodes/0/overlays/1/kind: must be one of \"text\", \"image\", \"video\", \"sound\", "
              "\"label-3d\", got \"gif\"");
    EXPECT_EQ(withChange(P("/narratives/0/transitions/0/duration"), 0),
              "doc.json: /narratives/0/transitions/0/duration: must be > 0");
    EXPECT_EQ(withChange(P("/narratives/0/nodes/0/view/heartPhase"), 1.0),
              "doc.json: /narratives/0/nodes/0/view/heartPhase: must be < 1");
    EXPECT_EQ(withChange(P("/narratives/0/nodes/0/view/colouring"), "rainbow"),
              "doc.json: /narratives/0/nodes/0/view/colouring: must be one of \"blood\", \"speed\", \"density-error\", "
              "\"pressure\", got \"rainbow\"");
    EXPECT_EQ(withChange(P("/narratives/0/nodes/0/waitForKey"), 1),
              "doc.json: /narratives/0/nodes/0/waitForKey: expected boolean, got integer");
    EXPECT_EQ(withChange(P("/narratives/0/nodes/0/overlays/0/volume"), 3),
              "doc.json: /narratives/0/nodes/0/overlays/0/volume: must be <= 1");
    EXPECT_EQ(withChange(P("/narratives/0/nodes/0/dwel"), 3), "doc.json: /narratives/0/nodes/0/dwel: unknown field in /narratives/0/nodes/0");
    json noPose = good;
    noPose["narratives"][0]["nodes"][1].erase("pose");
    EXPECT_EQ(errorOf(noPose), "doc.json: /narratives/0/nodes/1/pose: required in /narratives/0/nodes/1 but missing");
    EXPECT_EQ(errorOf(json::array()), "doc.json: expected a JSON object holding narratives, got array");
}

TEST(NarrativeDocument, ModelRulesNameTheField) {
    json j = toJson(fullDocument());
    j["narratives"][0]["transitions"].push_back({{"duration", 1}});
    EXPECT_EQ(errorOf(j), "doc.json: /narratives/0/transitions: 2 nodes need 1 transitions, found 2");
    j = toJson(fullDocument());
    j["narratives"][0]["nodes"][1]["overlays"][0].erase("media");
    EXPECT_EQ(errorOf(j), "doc.json: /narratives/0/nodes/1/overlays/0/media: a sound needs a media file");
}

TEST(NarrativeDocument, MediaPathsStayInsideAndMustExist) {
    json j = toJson(fullDocument());
    const std::string media = "/narratives/0/nodes/0/overlays/1/media";
    j[json::json_pointer(media)] = "../secret.png";
    EXPECT_EQ(errorOf(j), "doc.json: " + media + ": media path '../secret.png' leaves the document's folder ('..')");
    j[json::json_pointer(media)] = "/etc/passwd";
    EXPECT_NE(errorOf(j).find("is absolute"), std::string::npos);
    j[json::json_pointer(media)] = "media\\a.png";
    EXPECT_NE(errorOf(j).find("backslash"), std::string::npos);
    j[json::json_pointer(media)] = "media//a.png";
    EXPECT_NE(errorOf(j).find("empty or '.' component"), std::string::npos);
    // A missing file is named.
    j = toJson(fullDocument());
    const MediaExists allButEcho = [](const std::string& p) { return p != "media/echo.mp4"; };
    EXPECT_EQ(errorOf(j, allButEcho),
              "doc.json: /narratives/0/nodes/0/overlays/2/media: media file 'media/echo.mp4' not found");
    EXPECT_EQ(errorOf(j, [](const std::string&) { return true; }), "");
}

TEST(NarrativeDocument, SyntaxErrorsAndSizes) {
    try {
        parseNarrativeDocument("{\"format\": ", "broken.json");
        FAIL() << "no error";
    } catch (const NarrativeDocumentError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("broken.json: not valid JSON (line 1, column 11): JSON syntax error: ", 0), 0u) << e.what();
    }
    const std::string huge(NarrativeDocument::kMaxFileBytes + 1, ' ');
    EXPECT_THROW(parseNarrativeDocument(huge, "huge.json"), NarrativeDocumentError);
}

TEST(NarrativeDocument, SaveAndLoadAFile) {
    TempDir dir;
    const NarrativeDocument d = fullDocument();
    for (const char* m : {"media/atrium.png", "media/echo.mp4", "media/s1-s2.ogg"}) std::ofstream(dir.path / m) << "x";
    const fs::path file = dir.path / "tour.narratives.json";
    saveNarrativeDocument(d, file);
    EXPECT_EQ(loadNarrativeDocument(file), d);
    // Saving again replaces the file and leaves no temporary file behind.
    NarrativeDocument changed = d;
    changed.narratives[0].title = "Renamed";
    saveNarrativeDocument(changed, file);
    EXPECT_EQ(loadNarrativeDocument(file), changed);
    int files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++files;
    EXPECT_EQ(files, 2) << "the document and media/";
    // A missing media file next to the document is named, with the document.
    fs::remove(dir.path / "media/echo.mp4");
    try {
        loadNarrativeDocument(file);
        FAIL() << "no error";
    } catch (const NarrativeDocumentError& e) {
        EXPECT_EQ(std::string(e.what()), file.string() + ": /narratives/0/nodes/0/overlays/2/media: media file 'media/echo.mp4' not found");
    }
}

TEST(NarrativeDocument, FailedSaveLeavesTheOldFile) {
    TempDir dir;
    const fs::path file = dir.path / "tour.json";
    NarrativeDocument d;
    d.narratives.resize(1);
    saveNarrativeDocument(d, file);
    const std::string before = readText(file);
    // An invalid model is not written at all, and the error says where it is wrong.
    NarrativeDocument bad = fullDocument();
    bad.narratives[0].transitions.clear();
    try {
        saveNarrativeDocument(bad, file);
        FAIL() << "no error";
    } catch (const NarrativeDocumentError& e) {
        EXPECT_EQ(std::string(e.what()), file.string() + ": not saved, /narratives/0/transitions: 2 nodes need 1 transitions, found 0");
    }
    EXPECT_EQ(readText(file), before);
    // A folder that does not exist: the error names the file.
    try {
        saveNarrativeDocument(d, dir.path / "no-such-folder" / "x.json");
        FAIL() << "no error";
    } catch (const NarrativeDocumentError& e) {
        EXPECT_NE(std::string(e.what()).find("no-such-folder/x.json"), std::string::npos) << e.what();
    }
    EXPECT_THROW(loadNarrativeDocument(dir.path / "absent.json"), NarrativeDocumentError);
}

TEST(NarrativeDocument, TheShippedTourLoads) {
    // content/narratives: what the docs and UI tests use. At least 4 nodes; text, image
    // and 3D-label overlays; a node that holds the heart at end-systole (phase 0.44, in the
    // phantom's isovolumic relaxation: docs/heart-phantom.md).
    const NarrativeDocument d =
        loadNarrativeDocument(fs::path(ATRIUM_SOURCE_DIR) / "content/narratives/phantom-tour.narratives.json");
    ASSERT_EQ(d.narratives.size(), 1u);
    const Narrative& n = d.narratives[0];
    EXPECT_GE(n.nodes.size(), 4u);
    bool text = false, image = false, label = false, endSystole = false;
    for (const Node& node : n.nodes) {
        for (const OverlayItem& item : node.overlays) {
            text = text || item.kind == OverlayKind::Text;
            image = image || item.kind == OverlayKind::Image;
            label = label || item.kind == OverlayKind::Label3D;
        }
        endSystole = endSystole || (node.view.heartRunning == false && node.view.heartPhase == 0.44);
    }
    EXPECT_TRUE(text && image && label && endSystole);
}
