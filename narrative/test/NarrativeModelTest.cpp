// The narrative model: editing keeps one transition between each pair of nodes, and
// validate() names the field at fault as a JSON pointer.

#include "narrative/Narrative.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace atrium::narrative;

namespace {

Node titled(const std::string& title) {
    Node n;
    n.title = title;
    return n;
}

std::vector<std::string> titles(const Narrative& n) {
    std::vector<std::string> out;
    for (const Node& node : n.nodes) out.push_back(node.title);
    return out;
}

Narrative abc() {
    Narrative n;
    insertNode(n, 0, titled("a"));
    insertNode(n, 1, titled("b"), Transition{1.0, {}});
    insertNode(n, 2, titled("c"), Transition{2.0, {}});
    return n;
}

} // namespace

TEST(NarrativeModel, InsertKeepsOneTransitionPerPair) {
    Narrative n = abc();
    EXPECT_EQ(titles(n), (std::vector<std::string>{"a", "b", "c"}));
    ASSERT_EQ(n.transitions.size(), 2u);
    EXPECT_EQ(n.transitions[0].duration, 1.0); // the flight into an appended node
    EXPECT_EQ(n.transitions[1].duration, 2.0);
    insertNode(n, 0, titled("z"), Transition{5.0, {}}); // the flight out of a node put first
    EXPECT_EQ(titles(n), (std::vector<std::string>{"z", "a", "b", "c"}));
    EXPECT_EQ(n.transitions.size(), 3u);
    EXPECT_EQ(n.transitions[0].duration, 5.0);
    insertNode(n, 99, titled("end"));
    EXPECT_EQ(n.nodes.back().title, "end");
    EXPECT_EQ(n.transitions.size(), 4u);
    EXPECT_FALSE(validate(n));
}

TEST(NarrativeModel, RemoveAndMove) {
    Narrative n = abc();
    EXPECT_FALSE(removeNode(n, 3));
    ASSERT_TRUE(removeNode(n, 2));
    EXPECT_EQ(titles(n), (std::vector<std::string>{"a", "b"}));
    EXPECT_EQ(n.transitions.size(), 1u);
    ASSERT_TRUE(removeNode(n, 0));
    EXPECT_TRUE(n.transitions.empty());
    ASSERT_TRUE(removeNode(n, 0));
    EXPECT_TRUE(n.nodes.empty());
    EXPECT_FALSE(validate(n));

    n = abc();
    ASSERT_TRUE(moveNode(n, 0, 2));
    EXPECT_EQ(titles(n), (std::vector<std::string>{"b", "c", "a"}));
    EXPECT_EQ(n.transitions[0].duration, 1.0) << "transitions stay between positions";
    ASSERT_TRUE(moveNode(n, 2, 0));
    EXPECT_EQ(titles(n), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_FALSE(moveNode(n, 0, 3));
}

TEST(NarrativeModel, ValidateNamesTheField) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto expectError = [](const Narrative& n, const std::string& pointer) {
        const auto error = validate(n, "/narratives/0");
        ASSERT_TRUE(error) << "expected an error at " << pointer;
        EXPECT_EQ(error->rfind("/narratives/0" + pointer + ":", 0), 0u) << *error;
    };
    Narrative n = abc();
    n.transitions.pop_back();
    expectError(n, "/transitions");
    n = abc();
    n.nodes[1].dwell = -1;
    expectError(n, "/nodes/1/dwell");
    n = abc();
    n.nodes[2].fadeIn = nan;
    expectError(n, "/nodes/2/fadeIn");
    n = abc();
    n.nodes[0].pose.setPosition({nan, 0, 0});
    expectError(n, "/nodes/0/pose");
    n = abc();
    n.transitions[1].duration = 0.0;
    expectError(n, "/transitions/1/duration");
    n = abc();
    n.transitions[0].heartPhase = 1.0;
    expectError(n, "/transitions/0/heartPhase");
    n = abc();
    n.nodes[0].view.wallOpacity = 1.5;
    expectError(n, "/nodes/0/view/wallOpacity");
    n = abc();
    n.nodes[0].view.clipping = Clipping{true, 2.0};
    expectError(n, "/nodes/0/view/clipping/offset");
    n = abc();
    OverlayItem image;
    image.kind = OverlayKind::Image;
    n.nodes[1].overlays.push_back(OverlayItem{});
    n.nodes[1].overlays.push_back(image);
    expectError(n, "/nodes/1/overlays/1/media");
    n.nodes[1].overlays[1].media = "media/valve.png";
    n.nodes[1].overlays[1].rect.width = 0.0;
    expectError(n, "/nodes/1/overlays/1/rect");
    n.nodes[1].overlays[1].rect.width = 0.2;
    n.nodes[1].overlays[1].volume = 2.0;
    expectError(n, "/nodes/1/overlays/1/volume");
    n.nodes[1].overlays[1].volume = 1.0;
    EXPECT_FALSE(validate(n));
}

TEST(NarrativeModel, NamesRoundTrip) {
    for (OverlayKind k : {OverlayKind::Text, OverlayKind::Image, OverlayKind::Video, OverlayKind::Sound, OverlayKind::Label3D})
        EXPECT_EQ(overlayKindFromString(toString(k)), k);
    for (BloodColouring c : {BloodColouring::Blood, BloodColouring::Speed, BloodColouring::DensityError, BloodColouring::Pressure})
        EXPECT_EQ(bloodColouringFromString(toString(c)), c);
    for (FluidDrawing f : {FluidDrawing::Spheres, FluidDrawing::Surface}) EXPECT_EQ(fluidDrawingFromString(toString(f)), f);
    EXPECT_FALSE(overlayKindFromString("Text"));
}

TEST(NarrativeModel, ViewStateAtANodeIsWhatPlayingLeft) {
    Narrative n = abc();
    n.nodes[0].view.colouring = BloodColouring::Speed;
    n.nodes[0].view.clipping = Clipping{true, 0.2};
    n.nodes[1].view.heartRunning = false;
    n.nodes[1].view.heartPhase = 0.35;
    n.nodes[1].view.clipping = Clipping{false, 0.0};
    n.nodes[2].view.heartRunning = true;
    n.nodes[2].view.wallOpacity = 0.5;
    EXPECT_EQ(viewStateAt(n, 0), n.nodes[0].view);
    const ViewState second = viewStateAt(n, 1);
    EXPECT_EQ(second.colouring, BloodColouring::Speed) << "kept from node 0";
    EXPECT_EQ(second.clipping, (Clipping{false, 0.0})) << "replaced by node 1";
    EXPECT_EQ(second.heartPhase, 0.35);
    const ViewState third = viewStateAt(n, 2);
    EXPECT_EQ(third.heartRunning, true);
    EXPECT_FALSE(third.heartPhase) << "beating again: the hold's phase is gone";
    EXPECT_EQ(third.wallOpacity, 0.5);
    EXPECT_EQ(third.colouring, BloodColouring::Speed);
    EXPECT_TRUE(viewStateAt(Narrative{}, 3).empty());
}
