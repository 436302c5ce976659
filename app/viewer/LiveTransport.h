#pragma once
// The window's live-session service over app/transport (libwebsockets): what app/viewer
// hands to widgets::LiveLectureUi, which only knows the interfaces of widgets/live/LiveSession.h.

#include "widgets/live/LiveSession.h"

namespace atrium::app {

class LiveTransport : public widgets::LiveSessionService {
public:
    std::unique_ptr<widgets::LiveHost> host(const widgets::LiveHostOptions& options) override;
    std::unique_ptr<widgets::LiveGuest> join(const widgets::LiveJoinOptions& options) override;
};

} // namespace atrium::app
