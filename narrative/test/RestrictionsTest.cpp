// The restriction flags (Poyart 2016 5.6) and the gate that enforces them.

#include "narrative/Restrictions.h"

#include <gtest/gtest.h>

using namespace atrium::narrative;
using namespace std::chrono;

namespace {

constexpr Operation kEdits[] = {Operation::EditNarratives, Operation::EditResources, Operation::EditBranding,
                                Operation::EditRestrictions, Operation::EditContent};

bool mentions(const std::optional<std::string>& message, const std::string& word) {
    return message && message->find(word) != std::string::npos;
}

} // namespace

TEST(ContentGate, ADraftWithoutFlagsAllowsEverything) {
    const ContentGate gate;
    for (auto op : {Operation::OpenContent, Operation::EditNarratives, Operation::EditResources, Operation::EditBranding,
                    Operation::EditRestrictions, Operation::EditContent, Operation::FreeNavigation, Operation::ExportVideo,
                    Operation::RenderImage})
        EXPECT_FALSE(gate.check(op)) << toString(op);
    EXPECT_FALSE(gate.checkSize(Operation::RenderImage, {8192, 8192}));
}

TEST(ContentGate, EachFlagForbidsItsOperationAndNothingElse) {
    struct Case {
        void (*set)(Restrictions&);
        Operation forbidden;
        const char* why;
    };
    const Case cases[] = {
        {[](Restrictions& r) { r.narrativesLocked = true; }, Operation::EditNarratives, "narratives"},
        {[](Restrictions& r) { r.resourcesLocked = true; }, Operation::EditResources, "resources"},
        {[](Restrictions& r) { r.brandingRequired = true; }, Operation::EditBranding, "branding"},
        {[](Restrictions& r) { r.narrativeNavigationOnly = true; }, Operation::FreeNavigation, "navigation"},
        {[](Restrictions& r) { r.videoExportForbidden = true; }, Operation::ExportVideo, "video"},
    };
    for (const auto& c : cases) {
        AccessState s;
        c.set(s.restrictions);
        const ContentGate gate(s);
        EXPECT_TRUE(mentions(gate.check(c.forbidden), c.why)) << toString(c.forbidden);
        for (auto op : {Operation::OpenContent, Operation::EditNarratives, Operation::EditResources, Operation::EditBranding,
                        Operation::EditRestrictions, Operation::EditContent, Operation::FreeNavigation,
                        Operation::ExportVideo, Operation::RenderImage})
            if (op != c.forbidden) {
                EXPECT_FALSE(gate.check(op)) << c.why << " should not forbid " << toString(op);
            }
    }
}

TEST(ContentGate, MaxResolutionBoundsRendersAndVideos) {
    AccessState s;
    s.restrictions.maxResolution = Resolution{1920, 1080};
    const ContentGate gate(s);
    EXPECT_FALSE(gate.checkSize(Operation::RenderImage, {1920, 1080}));
    EXPECT_TRUE(mentions(gate.checkSize(Operation::RenderImage, {1921, 1080}), "1920 x 1080"));
    EXPECT_TRUE(mentions(gate.checkSize(Operation::ExportVideo, {1280, 1081}), "at most"));
    s.restrictions.videoExportForbidden = true;
    EXPECT_TRUE(mentions(ContentGate(s).checkSize(Operation::ExportVideo, {640, 480}), "video"));
}

TEST(ContentGate, ALockedPackageRefusesEveryEditButNotViewing) {
    AccessState s;
    s.locked = true;
    const ContentGate gate(s);
    for (auto op : kEdits) EXPECT_TRUE(mentions(gate.check(op), "locked")) << toString(op);
    EXPECT_FALSE(gate.check(Operation::OpenContent));
    EXPECT_FALSE(gate.check(Operation::FreeNavigation));
    EXPECT_FALSE(gate.check(Operation::ExportVideo));
}

TEST(ContentGate, TheAuthorIsNotBoundByTheFlags) {
    AccessState s;
    s.locked = true;
    s.authorPresent = true;
    s.restrictions = {true, true, true, true, true, Resolution{640, 480}, year{2000} / 1 / 1};
    const ContentGate gate(s);
    for (auto op : kEdits) EXPECT_FALSE(gate.check(op)) << toString(op);
    EXPECT_FALSE(gate.check(Operation::OpenContent));
    EXPECT_FALSE(gate.checkSize(Operation::ExportVideo, {4096, 4096}));
}

TEST(ContentGate, ExpiredContentOpensOnlyForItsAuthor) {
    AccessState s;
    s.restrictions.expires = year{2026} / 6 / 30;
    s.today = year{2026} / 6 / 30;
    EXPECT_FALSE(ContentGate(s).expired()) << "the last day still opens";
    EXPECT_FALSE(ContentGate(s).check(Operation::OpenContent));
    s.today = year{2026} / 7 / 1;
    EXPECT_TRUE(ContentGate(s).expired());
    EXPECT_TRUE(mentions(ContentGate(s).check(Operation::OpenContent), "2026-06-30"));
    EXPECT_TRUE(ContentGate(s).check(Operation::EditResources));
    s.authorPresent = true;
    EXPECT_FALSE(ContentGate(s).check(Operation::OpenContent));
}

TEST(Dates, ParseAndFormatIsoDates) {
    EXPECT_EQ(parseDate("2027-02-28"), year{2027} / 2 / 28);
    EXPECT_EQ(formatDate(year{2027} / 2 / 8), "2027-02-08");
    for (const char* bad : {"2027-02-29", "2027-13-01", "2027-1-01", "27-01-01", "2027/01/01", "", "2027-01-0x"})
        EXPECT_FALSE(parseDate(bad)) << bad;
    EXPECT_TRUE(parseDate("2028-02-29"));
}
