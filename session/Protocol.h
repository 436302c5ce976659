#pragma once
// The live session's wire protocol, version 1: every WebSocket text message is one JSON
// object {"v": 1, "type": ..., ...}. State, not video, travels: camera pose samples
// stamped with the lecturer's session clock, the narrative's playback state, simulation
// control, the view state, attention (free / hold), the floor, a resource opened for
// everyone and a pointer on the heart. A late joiner gets one snapshot of all of it,
// then deltas numbered by `seq`.
//
// parseMessage() reads untrusted input: the size is checked before parsing, nesting
// before building the tree, then the version, the type and the message's JSON Schema
// (session/schema/session-messages.schema.json, embedded at build time); anything else
// is refused with a reason that names the message type and the JSON pointer at fault.
// Its fuzz target is tests/fuzz/SessionMessageFuzz.cpp. The format, with examples:
// docs/session-protocol.md.
//
// Units: times in seconds on the lecturer's session clock (seconds since the session
// started), positions in millimetres in the heart's frame, angles in radians.

#include "narrative/CameraPose.h"
#include "narrative/Narrative.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace atrium::session {

inline constexpr int kProtocolVersion = 1;

/// Bounds on what is accepted, checked before anything is allocated for it.
struct MessageLimits {
    std::size_t maxBytes = 16 * 1024; ///< a text message's size
    int maxDepth = 8;                 ///< nesting of arrays and objects
};
/// From the server to a client (a roster of a large class is the largest message).
inline constexpr MessageLimits kServerMessageLimits{256 * 1024, 8};
/// From a client that drives (the lecturer or the presenter).
inline constexpr MessageLimits kDriverMessageLimits{16 * 1024, 8};
/// From a client that only follows: hello, auth, ping, status, resync, leave.
inline constexpr MessageLimits kStudentMessageLimits{512, 4};

/// A student's name, in bytes of UTF-8 (not characters): longer names are refused by the
/// parser, and a client shortens its own at a character boundary before saying hello.
inline constexpr std::size_t kMaxNameBytes = 64;

/// The content a session shows: its package, named by the BLAKE2b-256 hash of the file.
struct ContentId {
    std::string hash; ///< 64 lower-case hex digits
    std::string name; ///< the package's file name, for display
    std::uint64_t bytes = 0;
    bool operator==(const ContentId&) const = default;
};

/// One camera pose of the lecturer at session time `t`.
struct PoseSample {
    double t = 0.0;
    narrative::CameraPose pose;
    bool operator==(const PoseSample&) const = default;
};

/// Where the lecturer's narrative player is: students' players run from it, so the
/// node, the transition and its progress, the overlays shown and media playing follow
/// (narrative::evaluate is deterministic in these inputs).
struct NarrativeState {
    int index = -1;          ///< which narrative of the content's document; -1: none shown
    double time = 0.0;       ///< the player's timeline seconds at session time `at`
    double at = 0.0;         ///< session time
    bool playing = false;
    bool loop = false;
    std::vector<double> keys; ///< timeline seconds of the key presses that continued waits
    /// Where the camera was when play was pressed: the timeline starts with a flight from
    /// it to the first node (narrative::PlayerOptions::entryFrom); absent: no such flight.
    std::optional<narrative::CameraPose> entry;
    /// The timeline seconds at session time `now` (running on while playing).
    double timeAt(double now) const { return playing && now > at ? time + (now - at) : time; }
    bool operator==(const NarrativeState&) const = default;
};

/// The simulation: each student simulates locally with the same scene, parameters and
/// seed; the heart phase follows the lecturer's.
struct SimState {
    bool running = true;
    double phase = 0.0;       ///< heart phase in [0, 1) at session time `at`
    double at = 0.0;
    double rateBpm = 75.0;
    int particles = 15000;
    std::uint32_t seed = 1;   ///< reserved: the blood is a fixed lattice today, the same for every seed
    double viscosity = 3.5;   ///< mPa s
    double soundSpeed = 10.0; ///< m/s
    int resets = 0;           ///< counts Reset presses: a change restarts the blood
    /// The heart phase at session time `now` (beating on while running).
    double phaseAt(double now) const;
    bool operator==(const SimState&) const = default;
};

/// The view on screen (every field set, unlike a narrative node's ViewState).
struct ViewSettings {
    narrative::BloodColouring colouring = narrative::BloodColouring::Blood;
    narrative::FluidDrawing fluid = narrative::FluidDrawing::Spheres;
    double opacity = 0.35;
    narrative::Clipping clipping;
    bool wireframe = false;
    bool blood = true;
    bool operator==(const ViewSettings&) const = default;
};

enum class Attention {
    Free, ///< students may leave follow mode and explore
    Hold, ///< students follow and cannot leave until released
};

struct Pointer {
    narrative::Vec3 at; ///< the point on the heart, mm
    std::string label;
    bool operator==(const Pointer&) const = default;
};

/// Everything a student needs to show what the lecturer shows.
struct SessionState {
    std::optional<ContentId> content;
    NarrativeState narrative;
    SimState sim;
    ViewSettings view;
    Attention attention = Attention::Free;
    std::optional<int> floor;            ///< the client holding the floor (presenting), if any
    std::optional<std::string> resource; ///< a resource opened for everyone
    std::optional<Pointer> pointer;
    std::optional<PoseSample> pose;      ///< the latest camera pose
    bool operator==(const SessionState&) const = default;
};

enum class Role { Student, Lecturer, Presenter };

/// One connected client as the lecturer sees it.
struct Member {
    int id = 0;
    std::string name;
    Role role = Role::Student;
    bool following = true;
    bool operator==(const Member&) const = default;
};

/// Argon2id parameters and a fresh nonce: answered by an "auth" message.
struct Challenge {
    std::string nonce; ///< 64 hex digits
    std::string salt;  ///< 32 hex digits
    unsigned ops = 0;
    std::size_t mem = 0;
    bool operator==(const Challenge&) const = default;
};

namespace msg {
// Client -> server. Students may send only these (and not auth unless they have the secret).
struct Hello { std::string code, name; std::optional<int> resume; bool operator==(const Hello&) const = default; };
struct Auth { std::string tag; bool operator==(const Auth&) const = default; };
struct Ping { std::uint32_t id = 0; double t0 = 0; bool operator==(const Ping&) const = default; };
struct Status { bool following = true; bool operator==(const Status&) const = default; };
struct Leave { bool operator==(const Leave&) const = default; };
struct Resync { bool operator==(const Resync&) const = default; };
// Server -> client.
struct Welcome {
    int id = 0;
    std::string session; ///< 16 hex digits, new each time a server starts
    double now = 0;
    std::optional<ContentId> content;
    std::optional<Challenge> challenge; ///< present when the server accepts a lecturer
    bool operator==(const Welcome&) const = default;
};
struct Pong { std::uint32_t id = 0; double t0 = 0, ts = 0; bool operator==(const Pong&) const = default; };
struct AuthResult { bool ok = false; std::string reason; bool operator==(const AuthResult&) const = default; };
struct Snapshot { std::uint64_t seq = 0; SessionState state; bool operator==(const Snapshot&) const = default; };
struct Roster { std::vector<Member> members; bool operator==(const Roster&) const = default; };
struct Error { std::string reason; bool operator==(const Error&) const = default; };
struct Bye { std::string reason; bool operator==(const Bye&) const = default; };
// Both ways: a driver sends these without seq; the server numbers and broadcasts them.
struct Pose { PoseSample sample; bool operator==(const Pose&) const = default; };
struct Narrative { std::uint64_t seq = 0; NarrativeState state; bool operator==(const Narrative&) const = default; };
struct Sim { std::uint64_t seq = 0; SimState state; bool operator==(const Sim&) const = default; };
struct View { std::uint64_t seq = 0; ViewSettings state; bool operator==(const View&) const = default; };
struct AttentionMode { std::uint64_t seq = 0; Attention mode = Attention::Free; bool operator==(const AttentionMode&) const = default; };
struct Floor { std::uint64_t seq = 0; std::optional<int> holder; bool operator==(const Floor&) const = default; };
struct Resource { std::uint64_t seq = 0; std::optional<std::string> id; bool operator==(const Resource&) const = default; };
struct PointerAt { std::uint64_t seq = 0; std::optional<Pointer> pointer; bool operator==(const PointerAt&) const = default; };
} // namespace msg

using Message = std::variant<msg::Hello, msg::Auth, msg::Ping, msg::Status, msg::Leave, msg::Resync, msg::Welcome,
                             msg::Pong, msg::AuthResult, msg::Snapshot, msg::Roster, msg::Error, msg::Bye, msg::Pose,
                             msg::Narrative, msg::Sim, msg::View, msg::AttentionMode, msg::Floor, msg::Resource,
                             msg::PointerAt>;

/// The message's "type" on the wire ("hello", "pose", ...).
std::string_view typeName(const Message& message);
/// True for the messages that change the session state (what only a driver may send).
bool isDrive(const Message& message);
/// The sequence number of a state delta (0 for messages that have none, or not yet set).
std::uint64_t sequenceOf(const Message& message);
/// Sets the sequence number of a state delta; does nothing for other messages.
void setSequence(Message& message, std::uint64_t seq);

/// Applies a snapshot (replaces `state`), a pose or a delta to `state`; other messages
/// leave it as it is.
void applyToState(SessionState& state, const Message& message);

nlohmann::json toJson(const Message& message);
/// The message as compact JSON text (what is sent).
std::string encode(const Message& message);

nlohmann::json toJson(const SessionState& state);
/// Reads a state that passed the schema's "state" definition.
SessionState stateFromJson(const nlohmann::json& json);

/// A parsed message, or why `text` was refused ("pose: /p/1: must be <= 1000000").
struct ParseResult {
    std::optional<Message> message;
    std::string error;
    explicit operator bool() const { return message.has_value(); }
};

/// Reads one message of untrusted text. Never throws for any input.
ParseResult parseMessage(std::string_view text, const MessageLimits& limits = kServerMessageLimits);

/// The protocol's JSON Schema, as shipped.
const nlohmann::json& messageSchema();

} // namespace atrium::session
