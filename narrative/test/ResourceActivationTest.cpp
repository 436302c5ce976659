// Resource activation (Poyart 2016 5.5, figures 5.4 and 5.5) and what the resource bar lists.

#include "narrative/ResourceActivation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

using namespace atrium::narrative;

namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

/// Figure 5.5: a structure of interest at t on the heart's outer wall (the heart lies
/// around the origin, radius 40 mm), a viewing sphere in front of it, outside the heart.
Resource valveResource() {
    Resource r;
    r.id = "aortic-valve";
    r.name = "Aortic valve";
    r.kind = ResourceKind::Text;
    r.text = "Three cusps.";
    r.target = {0.0, -40.0, 0.0};
    r.centre = {0.0, -90.0, 0.0};
    r.radius = 20.0;
    return r;
}

} // namespace

TEST(ResourceActivation, InsideSphereLookingAtTargetIsActive) {
    const Resource r = valveResource();
    const ViewFrustum frustum;
    EXPECT_TRUE(isActive(r, CameraPose::lookAt({5.0, -95.0, 3.0}, r.target), frustum));
    // Looking somewhat aside, t still in the field of view.
    EXPECT_TRUE(isActive(r, CameraPose({0.0, -90.0, 0.0}, 10.0 * kDeg, 0.0), frustum));
}

TEST(ResourceActivation, InsideSphereWithTargetBehindIsNotActive) {
    const Resource r = valveResource();
    // Figure 5.5: in the sphere but turned away from t (looking along -Y, t is at +Y).
    EXPECT_FALSE(isActive(r, CameraPose({0.0, -90.0, 0.0}, std::numbers::pi, 0.0), ViewFrustum{}));
    // t to the side, beyond half the horizontal field of view.
    EXPECT_FALSE(isActive(r, CameraPose({0.0, -90.0, 0.0}, 80.0 * kDeg, 0.0), ViewFrustum{}));
}

TEST(ResourceActivation, OutsideSphereIsNotActiveEvenLookingAtTarget) {
    const Resource r = valveResource();
    // Figure 5.4's failure of the naive approach: from inside the heart, looking at the
    // same structure from behind. The sphere sits outside the heart, so it stays inactive.
    EXPECT_FALSE(isActive(r, CameraPose::lookAt({0.0, 0.0, 0.0}, r.target), ViewFrustum{}));
    // Just outside the sphere's surface, in front of t.
    EXPECT_FALSE(isActive(r, CameraPose::lookAt({0.0, -110.5, 0.0}, r.target), ViewFrustum{}));
    EXPECT_TRUE(isActive(r, CameraPose::lookAt({0.0, -109.5, 0.0}, r.target), ViewFrustum{}));
}

TEST(ResourceActivation, TargetFlagOffActivatesWhicheverWayTheCameraLooks) {
    Resource r = valveResource();
    r.ignoreTarget = true;
    EXPECT_TRUE(isActive(r, CameraPose({0.0, -90.0, 0.0}, std::numbers::pi, 0.0), ViewFrustum{}));
    EXPECT_TRUE(isActive(r, CameraPose({0.0, -90.0, 0.0}, 0.0, 80.0 * kDeg), ViewFrustum{}));
    // The sphere still counts.
    EXPECT_FALSE(isActive(r, CameraPose({0.0, -200.0, 0.0}, 0.0, 0.0), ViewFrustum{}));
}

TEST(ResourceActivation, FrustumUsesAspectAndNearFarPlanes) {
    const CameraPose pose({0.0, 0.0, 0.0}, 0.0, 0.0); // looking along +Y, right is +X
    ViewFrustum f;
    f.verticalFov = 60.0 * kDeg; // tan 30 deg = 0.577
    f.aspect = 2.0;              // horizontal half-width 1.155 per unit of depth
    EXPECT_TRUE(inFrustum({1.1, 1.0, 0.0}, pose, f));   // inside horizontally
    EXPECT_FALSE(inFrustum({1.2, 1.0, 0.0}, pose, f));  // just outside horizontally
    EXPECT_TRUE(inFrustum({0.0, 1.0, 0.55}, pose, f));  // inside vertically
    EXPECT_FALSE(inFrustum({0.0, 1.0, 0.6}, pose, f));  // just outside vertically
    EXPECT_FALSE(inFrustum({0.0, -1.0, 0.0}, pose, f)); // behind
    f.nearDistance = 2.0;
    f.farDistance = 10.0;
    EXPECT_FALSE(inFrustum({0.0, 1.0, 0.0}, pose, f));
    EXPECT_TRUE(inFrustum({0.0, 5.0, 0.0}, pose, f));
    EXPECT_FALSE(inFrustum({0.0, 11.0, 0.0}, pose, f));
}

TEST(ResourceActivation, ReportsWhatEnteredAndLeft) {
    Resource a = valveResource();
    Resource b = valveResource();
    b.id = "b";
    b.centre = {0.0, -200.0, 0.0};
    Resource global = valveResource();
    global.id = "g";
    global.global = true;
    const std::vector<Resource> all{a, b, global};
    ResourceActivation activation;
    activation.setResources(all);
    ASSERT_EQ(activation.size(), 3u);

    const auto atA = CameraPose::lookAt({0.0, -90.0, 0.0}, a.target);
    EXPECT_EQ(activation.update(atA, {}), (std::vector<ResourceActivation::Index>{0}));
    EXPECT_EQ(activation.entered(), (std::vector<ResourceActivation::Index>{0}));
    EXPECT_TRUE(activation.left().empty());

    activation.update(atA, {});
    EXPECT_TRUE(activation.entered().empty()) << "staying active is not entering again";

    const auto atB = CameraPose::lookAt({0.0, -200.0, 0.0}, b.target);
    EXPECT_EQ(activation.update(atB, {}), (std::vector<ResourceActivation::Index>{1}));
    EXPECT_EQ(activation.entered(), (std::vector<ResourceActivation::Index>{1}));
    EXPECT_EQ(activation.left(), (std::vector<ResourceActivation::Index>{0}));
}

TEST(ResourceActivation, FlatPassAgreesWithTheSingleResourceTest) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> pos(-100.0, 100.0), rad(5.0, 60.0), angle(-3.1, 3.1);
    std::vector<Resource> resources(500);
    for (std::size_t i = 0; i < resources.size(); ++i) {
        Resource& r = resources[i];
        r.id = std::to_string(i);
        r.centre = {pos(rng), pos(rng), pos(rng)};
        r.target = {pos(rng), pos(rng), pos(rng)};
        r.radius = rad(rng);
        r.ignoreTarget = i % 7 == 0;
        r.global = i % 31 == 0;
    }
    ResourceActivation activation;
    activation.setResources(resources);
    std::size_t seen = 0;
    for (int k = 0; k < 50; ++k) {
        const CameraPose pose({pos(rng), pos(rng), pos(rng)}, angle(rng), angle(rng) / 2.0);
        const auto& active = activation.update(pose, {});
        std::vector<ResourceActivation::Index> expected;
        for (std::size_t i = 0; i < resources.size(); ++i)
            if (isActive(resources[i], pose, {})) expected.push_back(ResourceActivation::Index(i));
        EXPECT_EQ(active, expected);
        seen += active.size();
    }
    EXPECT_GT(seen, 20u) << "the random scene should activate some resources";
}

TEST(ResourceListing, ListsGlobalAndActiveFilteredAndSorted) {
    std::vector<ResourceCategory> categories{{"Valves", {200, 40, 40}}, {"Chambers", {40, 40, 200}}};
    std::vector<Resource> rs(5);
    const char* names[] = {"Mitral", "Aorta", "Left ventricle", "Sounds", "Tricuspid"};
    const char* cats[] = {"Valves", "", "Chambers", "", "Valves"};
    for (int i = 0; i < 5; ++i) {
        rs[i].id = names[i];
        rs[i].name = names[i];
        rs[i].category = cats[i];
    }
    rs[3].global = true;
    const std::vector<ResourceActivation::Index> active{0, 1, 2, 4};

    using V = std::vector<ResourceActivation::Index>;
    EXPECT_EQ(listedResources(rs, active, categories, {}), (V{0, 1, 2, 3, 4}));
    EXPECT_EQ(listedResources(rs, V{2}, categories, {}), (V{2, 3})) << "a global one is always listed";
    EXPECT_EQ(listedResources(rs, active, categories, {"Valves", ResourceOrder::Document}), (V{0, 4}));
    EXPECT_EQ(listedResources(rs, active, categories, {"", ResourceOrder::Name}), (V{1, 2, 0, 3, 4}));
    // Valves first (Mitral, Tricuspid), then Chambers, then the uncategorised by name.
    EXPECT_EQ(listedResources(rs, active, categories, {"", ResourceOrder::Category}), (V{0, 4, 2, 1, 3}));
}

TEST(Resource, ValidationNamesTheField) {
    Resource r = valveResource();
    EXPECT_FALSE(validate(r));
    r.radius = 0.0;
    ASSERT_TRUE(validate(r));
    EXPECT_NE(validate(r)->find("radius"), std::string::npos);
    r.radius = 5.0;
    r.centre.x = std::nan("");
    EXPECT_NE(validate(r).value_or("").find("centre"), std::string::npos);
    r.centre.x = 0.0;
    r.kind = ResourceKind::Image;
    EXPECT_NE(validate(r).value_or("").find("media"), std::string::npos);
    r.kind = ResourceKind::WebLink;
    r.url = "javascript:alert(1)";
    EXPECT_NE(validate(r).value_or("").find("url"), std::string::npos);
    r.url = "https://example.org/heart";
    EXPECT_FALSE(validate(r));
    r.yearFrom = 2020;
    r.yearTo = 2010;
    EXPECT_NE(validate(r).value_or("").find("years"), std::string::npos);
}

TEST(Resource, AutoLaunchTextOnlyOpensTextsOnly) {
    Resource r = valveResource();
    r.autoLaunch = AutoLaunch::TextOnly;
    EXPECT_TRUE(launchesWhenActive(r));
    r.kind = ResourceKind::Image;
    EXPECT_FALSE(launchesWhenActive(r));
    r.autoLaunch = AutoLaunch::On;
    EXPECT_TRUE(launchesWhenActive(r));
    r.autoLaunch = AutoLaunch::Off;
    EXPECT_FALSE(launchesWhenActive(r));
}

TEST(Resource, NamesAndColoursRoundTrip) {
    for (auto k : {ResourceKind::Text, ResourceKind::Image, ResourceKind::Video, ResourceKind::Audio,
                   ResourceKind::WebLink, ResourceKind::File})
        EXPECT_EQ(resourceKindFromString(toString(k)), k);
    EXPECT_FALSE(resourceKindFromString("pdf"));
    EXPECT_EQ(colourFromHex("#C03a0F"), (Colour{0xc0, 0x3a, 0x0f}));
    EXPECT_EQ(toHex(Colour{0xc0, 0x3a, 0x0f}), "#c03a0f");
    EXPECT_FALSE(colourFromHex("c03a0f"));
    EXPECT_FALSE(colourFromHex("#c03a0g"));
    // The reposition view looks from the sphere's centre at the target.
    const Resource r = valveResource();
    const CameraPose v = r.view();
    EXPECT_EQ(v.position(), r.centre);
    EXPECT_NEAR(dot(v.forward(), normalized(r.target - r.centre)), 1.0, 1e-12);
}
