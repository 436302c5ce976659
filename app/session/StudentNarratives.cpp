#include "app/session/StudentNarratives.h"

#include <nlohmann/json.hpp>

namespace atrium::app {

std::string studentNarrativesJson(const narrative::NarrativeDocument& document) {
    using nlohmann::json;
    json narratives = json::array();
    for (const narrative::Narrative& n : document.narratives) {
        json nodes = json::array(), transitions = json::array();
        for (const narrative::Node& node : n.nodes) {
            json overlays = json::array();
            for (const narrative::OverlayItem& o : node.overlays)
                if (o.kind == narrative::OverlayKind::Text)
                    overlays.push_back({{"rect", {{"x", o.rect.x}, {"y", o.rect.y}, {"width", o.rect.width}, {"height", o.rect.height}}},
                                        {"z", o.z},
                                        {"text", o.text}});
            const auto& p = node.pose.position();
            nodes.push_back({{"pose", {{"p", {p.x, p.y, p.z}}, {"yaw", node.pose.yaw()}, {"pitch", node.pose.pitch()}}},
                             {"fadeIn", node.fadeIn},
                             {"dwell", node.dwell},
                             {"waitForKey", node.waitForKey},
                             {"fadeOut", node.fadeOut},
                             {"overlays", overlays}});
        }
        for (const narrative::Transition& t : n.transitions) transitions.push_back({{"duration", t.duration}});
        narratives.push_back({{"nodes", nodes}, {"transitions", transitions}});
    }
    return json{{"narratives", narratives}}.dump();
}

} // namespace atrium::app
