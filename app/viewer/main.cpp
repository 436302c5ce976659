// atrium: the viewer. Opens the window on the beating heart (the last one shown, or the
// adult phantom), or renders headless screenshots and frame-time measurements for tests
// and benchmarks; serves, joins or replays a live lecture. Run `atrium --help` for the options.
#include "app/BuildInfo.h"
#include "app/viewer/LiveTransport.h"

#include "narrative/package/ContentPackage.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureScratch.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/live/LiveLectureUi.h"
#include "sim/heart/VtkMessageRouting.h"
#include "io/MemoryBudget.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeVideoExport.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/lecture/OutputGate.h"
#include "widgets/narrative/OverlayLayer.h"
#include "widgets/view/EglContext.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/SimulationRunner.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QOpenGLContext>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSettings>
#include <QSocketNotifier>
#include <QSurfaceFormat>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

using namespace atrium;

namespace {

// Exit codes (docs/errors.md): 0 done, 1 bad command line, 2 the heart could not be
// loaded, 3 the blood could not be simulated or the lecture refused the output (its
// restrictions, not its author), 4 no OpenGL or another error, 5 --timeout.
constexpr int kExitBadHeart = 2, kExitBloodFailed = 3, kExitRefused = 3, kExitWriteFailed = 4, kExitTimeout = 5;

[[noreturn]] void fail(const QString& message, int code = 1) {
    std::cerr << "atrium: " << message.toStdString() << "\n";
    std::exit(code);
}

// SIGTERM, SIGINT and SIGHUP end the viewer through std::exit, as its own exits do, so
// that what it put in the temporary folder goes with it (widgets/lecture/LectureScratch.h). The
// handler only writes the signal to a pipe; the event loop reads it. A second signal
// finds the default action again and ends the process at once.
int terminationPipe[2] = {-1, -1};

extern "C" void onTerminationSignal(int sig) {
    ::signal(sig, SIG_DFL);
    const char c = char(sig);
    [[maybe_unused]] const auto written = ::write(terminationPipe[1], &c, 1);
}

void exitOnTerminationSignals(QObject* parent) {
    if (::pipe2(terminationPipe, O_CLOEXEC | O_NONBLOCK) != 0) return;
    auto* notifier = new QSocketNotifier(terminationPipe[0], QSocketNotifier::Read, parent);
    QObject::connect(notifier, &QSocketNotifier::activated, [] {
        char sig = 0;
        if (::read(terminationPipe[0], &sig, 1) == 1) std::exit(128 + sig);
    });
    struct sigaction action {};
    action.sa_handler = onTerminationSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

QSize parseSize(const QString& text) {
    const auto m = QRegularExpression("^(\\d+)[xX](\\d+)$").match(text);
    if (!m.hasMatch()) fail("--size expects WIDTHxHEIGHT (e.g. 1280x720), got '" + text + "'");
    const QSize s(m.captured(1).toInt(), m.captured(2).toInt());
    const int limit = widgets::SceneView::kMaxImageSide;
    if (s.width() < 16 || s.height() < 16 || s.width() > limit || s.height() > limit)
        fail(QString("--size must be between 16x16 and %1x%1, got '%2'").arg(limit).arg(text));
    return s;
}

int parsePositive(const QCommandLineParser& p, const QString& name, int fallback, int lo, int hi) {
    if (!p.isSet(name)) return fallback;
    bool ok = false;
    const int v = p.value(name).toInt(&ok);
    if (!ok || v < lo || v > hi) fail(QString("--%1 expects an integer in [%2, %3], got '%4'").arg(name).arg(lo).arg(hi).arg(p.value(name)));
    return v;
}

/// Makes the lecture's author present with the command line's credentials: the key
/// that signed it (`--key`), or the password of its lock (`--password-file`), as
/// atrium-pack takes them. Nothing given: nothing to do. Why not, or nullopt.
std::optional<QString> authorise(package::ContentPackage& lecture, const QString& keyFile,
                                 const std::optional<std::string>& password) {
    try {
        if (!keyFile.isEmpty()) {
            if (auto r = lecture.useSigningKey(package::SigningKey::load(keyFile.toStdString())); !r)
                return "--key " + keyFile + ": " + QString::fromStdString(r.error());
        } else if (password) {
            if (!lecture.locked())
                return QString("--password-file: the lecture is not locked; its author is who signed it: give --key KEYFILE");
            if (auto r = lecture.unlock(*password); !r) return "--password-file: " + QString::fromStdString(r.error());
        }
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return std::nullopt;
}

/// argv split in two: Atrium's own options with their values (in order), and the rest
/// (Qt's options, the lecture file) for QApplication, which keeps qtArgv's strings.
struct OwnArguments {
    QStringList atrium;
    int qtArgc = 0;
    std::vector<char*> qtArgv;
};

OwnArguments takeOwnArguments(int argc, char** argv, const QList<QCommandLineOption>& options) {
    OwnArguments out;
    out.qtArgv.push_back(argv[0]);
    for (int i = 1; i < argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (arg == "--") { // the rest is positional: Atrium's
            for (; i < argc; ++i) out.atrium << QString::fromLocal8Bit(argv[i]);
            break;
        }
        const QString name = arg.startsWith("--") ? arg.mid(2).section('=', 0, 0) : QString();
        const auto own = std::find_if(options.begin(), options.end(),
                                      [&](const QCommandLineOption& o) { return !name.isEmpty() && o.names().contains(name); });
        if (own == options.end()) {
            out.qtArgv.push_back(argv[i]);
            continue;
        }
        out.atrium << arg;
        if (!own->valueName().isEmpty() && !arg.contains('=') && i + 1 < argc) out.atrium << QString::fromLocal8Bit(argv[++i]);
    }
    out.qtArgc = int(out.qtArgv.size());
    out.qtArgv.push_back(nullptr);
    return out;
}

/// Whether the run renders without a display, on an EGL context of its own: asked for
/// with --offscreen, or a headless command (--screenshot, --measure-frames,
/// --export-video) with neither DISPLAY nor WAYLAND_DISPLAY set. Read from Atrium's own
/// arguments before QApplication, which needs to know its platform.
bool rendersOffscreen(const QStringList& own) {
    const auto given = [&](const QString& name) {
        return std::any_of(own.begin(), own.end(), [&](const QString& a) { return a == name || a.startsWith(name + "="); });
    };
    if (given("--offscreen")) return true;
    const bool headless = given("--screenshot") || given("--measure-frames") || given("--export-video");
    return headless && qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

/// Offscreen, Qt's platform has no OpenGL and says so once, when the window is shown,
/// for the 3D view's QOpenGLWidget, which is never painted there (SceneView draws on the
/// EGL context), and it cannot size a window that is on no screen: those lines would
/// only mislead. Everything else passes.
QtMessageHandler qtMessages = nullptr;
void quietOffscreenGlWidget(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type == QtWarningMsg && (message == "QOpenGLWidget is not supported on this platform." ||
                                 message == "QOpenGLWidget: Failed to create context" ||
                                 message == "This plugin does not support propagateSizeHints()"))
        return;
    qtMessages(type, context, message);
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
}

} // namespace

int main(int argc, char** argv) {
    // Before Qt starts: the version needs no display.
    if (argc == 2 && std::string_view(argv[1]) == "--version") {
        std::cout << app::versionText("atrium");
        return 0;
    }
    const pid_t parentAtStart = ::getppid();
    heart::routeVtkMessages("atrium"); // VTK's own warnings name the user's file
    QSurfaceFormat format;
    format.setDepthBufferSize(24);
    format.setStencilBufferSize(8);
    format.setSwapInterval(0); // frames are paced by the view's timer, not the display
    QSurfaceFormat::setDefaultFormat(format);

    // Narratives' video and sound overlays: Qt Multimedia through FFmpeg, which Atrium
    // already depends on (its GStreamer backend would need codec packages of its own).
    if (qEnvironmentVariableIsEmpty("QT_MEDIA_BACKEND")) qputenv("QT_MEDIA_BACKEND", "ffmpeg");

    QCommandLineParser parser;
    parser.setApplicationDescription("Atrium: a beating heart with SPH blood, for teaching.");
    parser.addHelpOption();
    const QList<QCommandLineOption> atriumOptions{
        {"phantom", "Show the synthetic heart NAME (adult, athlete, heart-failure, child, aortic-stenosis, four-chamber, mitral-regurgitation).", "NAME"},
        {"volumes", "Show the heart of a 4D scan: a folder or printf pattern of volumes, one per phase.", "PATTERN"},
        {"meshes", "Show a series of surface meshes: a folder or printf pattern, one per phase; once per chamber.", "PATTERN"},
        {"shell", "Show a series of surface meshes (an epicardium) around the heart as a translucent shell, no blood.",
         "PATTERN"},
        {"isovalue", "With --volumes: the blood/wall isovalue (default: suggested by the intensity histogram).", "V"},
        {"particles", "Blood particle budget (default 15000).", "N"},
        {"backend", "Simulation backend: cpu or cuda.", "NAME"},
        {"mode", "Navigation: orbit, usim or first-person.", "MODE"},
        {"color", "Colour the blood by: blood, speed, density or pressure.", "NAME"},
        {"fluid", "Draw the blood as spheres (one per particle) or as a smooth liquid surface.", "spheres|surface"},
        {"flow", "The blood: live (simulated now) or baked (a beat baked once, played at the true heart rate).",
         "live|baked"},
        {"flow-file", "Play this baked beat (atrium-sim heart --bake FILE) of the heart shown.", "FILE"},
        {"screenshot", "Render, write the view to PATH (PNG) and exit.", "PATH"},
        {"after-frames", "With --screenshot or --measure-frames: frames to render with blood first (default 10).", "N"},
        {"after-seconds", "With --screenshot or --measure-frames: also wait until the blood shown has been simulated S "
                          "seconds (simulated_seconds in the JSON), e.g. into systole; --timeout bounds the wait.", "S"},
        {"size", "Image or window size for --screenshot / --measure-frames (default 1280x720).", "WxH"},
        {"measure-frames", "Render N frames with blood and print frame times (p50, p95) as JSON, then exit.", "N"},
        {"timeout", "Headless modes: give up after S seconds (default 300).", "S"},
        {"offscreen", "Headless modes: render without a display, on an EGL context of its own (a GPU, else Mesa's "
                      "llvmpipe); the default when DISPLAY and WAYLAND_DISPLAY are unset."},
        {"narratives", "Open a narratives file (docs/narratives.md); beside a lecture, in place of its own.", "FILE"},
        {"play", "With --narratives or a lecture: play narrative K (1 = the first) once the window is open.", "K"},
        {"narrative", "With --narratives or a lecture, and --screenshot or --export-video: narrative K (1 = the first).",
         "K"},
        {"at", "With --narrative and --screenshot: the moment of the narrative to render, in seconds (default 0).", "T"},
        {"export-video", "With --narrative: render the narrative frame by frame into an MP4 video and exit.", "MP4"},
        {"fps", "With --export-video: frames per second (default 30).", "F"},
        {"lecture", "With FILE.atrium: lecture it live; students join with the URL and code shown."},
        {"key", "With FILE.atrium: its author's key file (the key that signed it): its restrictions do not bind its author.",
         "KEYFILE"},
        {"password-file", "With FILE.atrium: the password of its author's lock, the first line of FILE.", "FILE"},
        {"port", "With --lecture: the port students connect to (default: any free port).", "P"},
        {"join", "Follow a live lecture at URL (ws://HOST:PORT, as the lecturer's window shows).", "URL"},
        {"code", "With --join: the join code the lecturer shows.", "CODE"},
        {"name", "With --join: your name, as the lecturer sees it.", "NAME"},
        {"secret", "With --join: the lecturer secret, to drive the lecture from this machine.", "SECRET"},
        {"replay", "Replay a recorded live lecture (.atriumrec) in the window.", "FILE"},
        {"self-signed", "With --lecture: encrypt it (wss://) with a classroom certificate. With --join: accept one."},
        {"max-memory", "The most memory a heart file may declare, e.g. 8G (default: the memory available).", "SIZE"},
        {"units", "With --volumes or --meshes: the files' unit, mm (default), cm, m or um.", "UNIT"},
        {"scale", "With --volumes or --meshes: millimetres per unit of the files (e.g. 1000 for metres).", "F"},
    };
    parser.addOptions(atriumOptions);
    parser.addPositionalArgument("lecture", "A lecture to open: a content package (FILE.atrium) with its heart, narratives and "
                                            "resources.", "[FILE.atrium]");
    // Qt reads its own options (-name, -display, ...) with two dashes too, and would take
    // `--name Ana` for itself: Atrium's options leave argv before QApplication sees it.
    OwnArguments own = takeOwnArguments(argc, argv, atriumOptions);
    // Offscreen, Qt's widgets need no display (its offscreen platform) and the 3D view
    // draws on an EGL context of its own.
    const bool offscreen = rendersOffscreen(own.atrium);
    if (offscreen) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        qtMessages = qInstallMessageHandler(quietOffscreenGlWidget);
    }
    QApplication app(own.qtArgc, own.qtArgv.data());
    QApplication::setOrganizationName("Atrium");
    QApplication::setApplicationName("Atrium");
    parser.process(QStringList{app.arguments().value(0, "atrium")} + own.atrium + app.arguments().mid(1));
    exitOnTerminationSignals(&app);
    widgets::scratch::removeStale(); // what viewers that were killed left in the temporary folder
    if (parser.isSet("screenshot") || parser.isSet("measure-frames")) {
        // A headless run dies with whatever started it (xvfb-run, a test driver): killed
        // together, it must not keep running on a display that is gone.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parentAtStart) return 4; // the parent died before prctl
    }

    if (parser.isSet("max-memory")) {
        try {
            io::setMemoryBudget(io::parseByteSize(parser.value("max-memory").toStdString()), "--max-memory");
        } catch (const std::invalid_argument& e) {
            fail(QString("--max-memory: ") + e.what());
        }
    }
    widgets::ViewerOptions options;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1) fail("give at most one lecture (FILE.atrium)");
    if (!positional.isEmpty()) {
        if (!positional[0].endsWith(".atrium", Qt::CaseInsensitive))
            fail("'" + positional[0] + "' is not a lecture: content packages end in .atrium");
        if (!QFileInfo::exists(positional[0])) fail(positional[0] + ": no such file");
        options.lecture = positional[0];
    }
    // An installed Atrium started with nothing to show (a menu entry, a first start)
    // opens the sample lecture it ships, as scripts/demo does from the build tree.
    const bool nothingNamed = !options.lecture && !parser.isSet("phantom") && !parser.isSet("volumes") &&
                              !parser.isSet("meshes") && !parser.isSet("narratives") && !parser.isSet("join") &&
                              !parser.isSet("replay") && !parser.isSet("flow-file");
    const bool rendersOnly = parser.isSet("screenshot") || parser.isSet("measure-frames") || parser.isSet("export-video");
    if (nothingNamed && (rendersOnly || !QSettings().contains("heart/kind"))) // a render remembers no heart
        if (const auto sample = app::installedSampleLecture()) options.lecture = QString::fromStdString(sample->string());
    const int sources = int(parser.isSet("phantom")) + int(parser.isSet("volumes")) + int(parser.isSet("meshes"));
    if (sources > 1) fail("give one of --phantom, --volumes, --meshes");
    if (sources > 0 && options.lecture) fail("a lecture brings its own heart: give either FILE.atrium or a heart option");
    try {
        if (parser.isSet("phantom")) options.source = heart::HeartSource::fromPreset(parser.value("phantom").toStdString());
        std::optional<float> isovalue;
        if (parser.isSet("isovalue")) {
            bool ok = false;
            isovalue = parser.value("isovalue").toFloat(&ok);
            if (!ok || !parser.isSet("volumes"))
                fail("--isovalue expects a number and goes with --volumes, got '" + parser.value("isovalue") + "'");
        }
        if (parser.isSet("volumes"))
            options.source = heart::HeartSource::fromVolumes(parser.value("volumes").toStdString(), isovalue);
        if (parser.isSet("meshes")) {
            // One series per chamber (LV, RV): --meshes may be given once for each.
            std::vector<heart::ChamberSeries> chambers;
            for (const QString& pattern : parser.values("meshes")) chambers.push_back({pattern.toStdString(), {}, {}});
            options.source = heart::HeartSource::fromChambers(std::move(chambers));
        }
        if (parser.isSet("scale") || parser.isSet("units")) {
            if (parser.isSet("scale") && parser.isSet("units")) fail("give one of --scale and --units");
            if (!parser.isSet("volumes") && !parser.isSet("meshes"))
                fail("--scale and --units go with --volumes or --meshes (the phantom is in millimetres)");
            bool ok = true;
            const double scale = parser.isSet("units") ? heart::unitScale(parser.value("units").toStdString())
                                                       : parser.value("scale").toDouble(&ok);
            if (!ok || !(scale > 0.0) || !std::isfinite(scale))
                fail("--scale expects a positive number, got '" + parser.value("scale") + "'");
            options.source->scale = scale;
        }
    } catch (const std::exception& e) {
        fail(e.what());
    }
    if (parser.isSet("shell")) {
        if (parser.values("shell").size() > 1) fail("--shell is given more than once: one shell around the heart");
        if (options.lecture) fail("a lecture brings its own heart: --shell goes with a heart option");
        options.shellPattern = parser.value("shell").toStdString();
    }
    if (parser.isSet("particles"))
        options.particleBudget = parsePositive(parser, "particles", 15000, widgets::SimulationChoices::kMinParticles,
                                               widgets::SimulationChoices::kMaxParticles);
    if (parser.isSet("backend")) {
        const QString b = parser.value("backend");
        if (b != "cpu" && b != "cuda") fail("--backend expects cpu or cuda, got '" + b + "'");
        if (b == "cuda" && !sph::cudaBackendAvailable()) fail("--backend cuda: no CUDA GPU on this machine");
        options.cuda = b == "cuda";
    }
    const bool screenshot = parser.isSet("screenshot");
    const int measure = parsePositive(parser, "measure-frames", 0, 1, 100000);
    const bool exportVideo = parser.isSet("export-video");
    const bool headless = screenshot || measure > 0 || exportVideo;
    options.persistSettings = !headless;
    options.headless = headless;
    const QSize size = parseSize(parser.value("size").isEmpty() ? "1280x720" : parser.value("size"));
    const int afterFrames = parsePositive(parser, "after-frames", 10, 1, 100000);
    double afterSeconds = 0.0;
    if (parser.isSet("after-seconds")) {
        bool ok = false;
        afterSeconds = parser.value("after-seconds").toDouble(&ok);
        if (!ok || !std::isfinite(afterSeconds) || afterSeconds < 0.0 || afterSeconds > 3600.0)
            fail("--after-seconds expects simulated seconds in 0-3600, got '" + parser.value("after-seconds") + "'");
        if (!screenshot && measure == 0) fail("--after-seconds goes with --screenshot or --measure-frames");
    }
    const int timeout = parsePositive(parser, "timeout", 300, 1, 86400);

    if (parser.isSet("mode")) {
        const QString m = parser.value("mode");
        if (m == "orbit") options.navigation = narrative::CameraMode::Orbit;
        else if (m == "usim") options.navigation = narrative::CameraMode::Usim;
        else if (m == "first-person") options.navigation = narrative::CameraMode::FirstPerson;
        else fail("--mode expects orbit, usim or first-person, got '" + m + "'");
    }
    if (parser.isSet("color")) {
        const QString c = parser.value("color");
        if (c == "blood") options.color = widgets::ColorQuantity::Blood;
        else if (c == "speed") options.color = widgets::ColorQuantity::Speed;
        else if (c == "density") options.color = widgets::ColorQuantity::DensityError;
        else if (c == "pressure") options.color = widgets::ColorQuantity::Pressure;
        else fail("--color expects blood, speed, density or pressure, got '" + c + "'");
    }
    if (parser.isSet("fluid")) {
        const QString f = parser.value("fluid");
        if (f == "spheres") options.fluid = widgets::FluidMode::Spheres;
        else if (f == "surface") options.fluid = widgets::FluidMode::Surface;
        else fail("--fluid expects spheres or surface, got '" + f + "'");
    }

    // The lecture's author: the key that signed it, or its lock's password.
    for (const char* option : {"key", "password-file"})
        if (parser.isSet(option) && !options.lecture) fail(QString("--%1 goes with a lecture (FILE.atrium)").arg(option));
    if (parser.isSet("key") && parser.isSet("password-file")) fail("give one of --key and --password-file");
    std::optional<std::string> password;
    if (parser.isSet("password-file")) {
        QFile file(parser.value("password-file"));
        if (!file.open(QIODevice::ReadOnly)) fail(parser.value("password-file") + ": cannot read (" + file.errorString() + ")");
        QByteArray line = file.read(4096);
        if (const auto end = line.indexOf('\n'); end >= 0) line.truncate(end);
        if (line.endsWith('\r')) line.chop(1);
        password = line.toStdString();
    }

    // Narratives: which one, and when (a lecture brings its own; --narratives replaces them).
    const bool narratives = parser.isSet("narratives");
    for (const char* option : {"play", "narrative", "at", "export-video"})
        if (parser.isSet(option) && !narratives && !options.lecture)
            fail(QString("--%1 goes with --narratives FILE or a lecture (FILE.atrium)").arg(option));
    if ((exportVideo || parser.isSet("at")) && !parser.isSet("narrative")) fail("--export-video and --at go with --narrative K");
    if (parser.isSet("narrative") && !screenshot && !exportVideo) fail("--narrative K goes with --screenshot or --export-video");
    if (exportVideo && (screenshot || measure > 0)) fail("--export-video cannot be combined with --screenshot or --measure-frames");
    if (parser.isSet("play") && headless) fail("--play is for the window; use --narrative K with --screenshot or --export-video");
    const int narrativeNumber = parsePositive(parser, parser.isSet("play") ? "play" : "narrative", 1, 1, 1000);
    double at = 0.0;
    if (parser.isSet("at")) {
        bool ok = false;
        at = parser.value("at").toDouble(&ok);
        if (!ok || !std::isfinite(at) || at < 0.0) fail("--at expects seconds >= 0, got '" + parser.value("at") + "'");
    }
    const int fps = parsePositive(parser, "fps", 30, 1, 120);

    // The live lecture: serve, join or replay.
    const bool lecture = parser.isSet("lecture"), joining = parser.isSet("join"), replaying = parser.isSet("replay");
    if (int(lecture) + int(joining) + int(replaying) > 1) fail("give one of --lecture, --join, --replay");
    if (lecture && !options.lecture) fail("--lecture goes with a lecture to serve: atrium FILE.atrium --lecture [--port P]");
    if (parser.isSet("port") && !lecture) fail("--port goes with --lecture");
    if (parser.isSet("self-signed") && !lecture && !joining) fail("--self-signed goes with --lecture or --join");
    for (const char* option : {"code", "name", "secret"})
        if (parser.isSet(option) && !joining) fail(QString("--%1 goes with --join URL").arg(option));
    if (joining && !parser.isSet("code") && !parser.value("join").contains("code="))
        fail("--join needs the lecturer's join code: --code CODE");
    if ((lecture || joining || replaying) && headless) fail("--lecture, --join and --replay are for the window");
    if (parser.isSet("offscreen") && !headless)
        fail("--offscreen goes with --screenshot, --measure-frames or --export-video (the window needs a display)");
    const int port = parsePositive(parser, "port", 0, 1, 65535);

    // Offscreen: the context comes from EGL, before anything is loaded, so that a
    // machine without one hears why at once.
    std::unique_ptr<widgets::EglContext> eglContext;
    if (offscreen) {
        try {
            eglContext = std::make_unique<widgets::EglContext>();
        } catch (const widgets::EglError& e) {
            fail(QString(parser.isSet("offscreen") ? "--offscreen" : "offscreen rendering (no DISPLAY)") + ": " + e.what() +
                     ". Mesa's EGL (Debian package libegl-mesa0) renders without a GPU.",
                 4);
        }
    }
    // Without an OpenGL context Qt crashes in its own backing store when the 3D view is
    // shown (seen under Xvfb without GLX): say what is missing and stop instead.
    if (QOpenGLContext probe; !offscreen && !probe.create()) {
        const QString why = "no OpenGL context can be created on this display (Qt platform '" +
                            QGuiApplication::platformName() +
                            "'); the 3D view needs OpenGL 3.3. Under Xvfb, Mesa's GLX provides it (Debian package "
                            "libgl1-mesa-dri).";
        if (!headless) QMessageBox::critical(nullptr, "Atrium", why);
        fail(why, 4);
    }
    if (parser.isSet("flow")) {
        const QString f = parser.value("flow");
        if (f != "live" && f != "baked") fail("--flow expects live or baked, got '" + f + "'");
        options.realTimeFlow = f == "baked";
    }
    if (parser.isSet("flow-file")) {
        if (options.realTimeFlow == false) fail("--flow-file plays a baked beat: it does not go with --flow live");
        options.flowFile = parser.value("flow-file").toStdString();
    }

    widgets::MainWindow window(options);
    widgets::NarrativeWorkspace* workspace = window.narratives();
    widgets::SceneView* view = window.sceneView();
    // The narratives file, or the lecture's own; then narrative K.
    auto chooseNarrative = [&](const QString& source) {
        if (narratives) {
            QString error;
            if (!workspace->openFile(parser.value("narratives"), &error)) fail(error);
        }
        const int count = int(workspace->editor()->document().narratives.size());
        if ((parser.isSet("play") || parser.isSet("narrative")) && narrativeNumber > count)
            fail(QString("%1 has %2 narrative(s), not %3").arg(source).arg(count).arg(narrativeNumber));
        workspace->editor()->setCurrentIndex(narrativeNumber - 1);
        if (parser.isSet("play") && !headless) QTimer::singleShot(0, workspace->playback(), &widgets::NarrativePlayback::play);
    };
    bool narrativeChosen = false, lectureAdmitted = false;
    if (options.lecture) {
        // Before the lecture is adopted (nothing extracted, no heart loaded): its author's
        // credentials, then - headless - whether it lets this output out at this size.
        // The view's OutputGate asks again at every frame written; this only says it early.
        window.lectureUi()->setAdmission([&](package::ContentPackage& opened) -> std::optional<QString> {
            if (std::exchange(lectureAdmitted, true)) return std::nullopt; // one opened later in the window
            if (auto why = authorise(opened, parser.value("key"), password)) fail(*why, kExitRefused);
            if (!headless) return std::nullopt;
            if (auto why = opened.gate().check(narrative::Operation::OpenContent)) fail(QString::fromStdString(*why), kExitRefused);
            widgets::OutputGate gate;
            gate.setLecture(std::shared_ptr<const package::ContentPackage>(&opened, [](const package::ContentPackage*) {}));
            const auto why = exportVideo ? gate.refuseVideo(size) : screenshot ? gate.refuseImage(size) : std::nullopt;
            if (why) fail(*why, kExitRefused);
            return std::nullopt;
        });
        if (narratives || parser.isSet("play") || parser.isSet("narrative"))
            QObject::connect(window.lectureUi(), &widgets::LectureUi::lectureChanged, workspace, [&](const QString& title) {
                // Once: the lecture of the command line, not one opened later in the window.
                if (title.isEmpty() || std::exchange(narrativeChosen, true)) return;
                chooseNarrative(narratives ? parser.value("narratives") : *options.lecture);
            });
    } else if (narratives) {
        chooseNarrative(parser.value("narratives"));
    }
    if (headless) {
        // The window's 3D view gets the requested size (menus and status bar around it).
        window.resize(size + (window.size() - view->size()));
        view->setFixedSize(size);
    }
    if (offscreen) {
        // Shown for Qt (layouts, visibility, timers) but never put on a screen: the view
        // draws its frames on the EGL context.
        window.setAttribute(Qt::WA_DontShowOnScreen);
        QObject::connect(view, &widgets::SceneView::renderFailed,
                         [](const QString& why) { fail("offscreen rendering: " + why, kExitWriteFailed); });
        try {
            view->renderOffscreen(std::move(eglContext));
        } catch (const std::exception& e) {
            fail(QString("offscreen rendering: ") + e.what(), kExitWriteFailed);
        }
    }
    widgets::LiveLectureUi live(&window, std::make_shared<app::LiveTransport>(), !headless);
    window.show();
    if (!headless) {
        if (lecture) { // once the lecture is open and verified
            QObject::connect(window.lectureUi(), &widgets::LectureUi::lectureChanged, &live, [&](const QString& title) {
                if (title.isEmpty() || live.host()) return;
                QString error;
                if (!live.startLecture(port, &error, parser.isSet("self-signed"))) fail(error, 3);
                std::cout << nlohmann::json{{"url", live.host()->urls().front().toStdString()},
                                            {"code", live.host()->code().toStdString()}}
                                 .dump()
                          << std::endl;
            });
        }
        QString error;
        if (joining && !live.join({parser.value("join"), parser.value("code").toUpper(), parser.value("name"),
                                   parser.isSet("secret") ? std::optional(parser.value("secret")) : std::nullopt,
                                   parser.isSet("self-signed")},
                                  &error))
            fail(error);
        if (replaying) {
            // After the lecture given beside it has opened (the replay opens the one it
            // names, if another), so that the two do not open at once.
            const auto openReplay = [&] {
                QString why;
                if (!live.openRecording(parser.value("replay"), &why)) fail(why, 2);
            };
            if (options.lecture) {
                auto opened = std::make_shared<bool>(false);
                const auto once = [opened, openReplay] {
                    if (!std::exchange(*opened, true)) openReplay();
                };
                QObject::connect(window.lectureUi(), &widgets::LectureUi::lectureChanged, &live, once);
                QObject::connect(window.lectureUi(), &widgets::LectureUi::openFailed, &live, once);
            } else {
                openReplay();
            }
        }
        return app.exec();
    }

    QObject::connect(&window, &widgets::MainWindow::loadFailed, [](const QString& why) { fail(why, kExitBadHeart); });
    QTimer::singleShot(timeout * 1000, [&] {
        fail(QString("gave up after %1 s (frames with blood: %2)").arg(timeout).arg(view->framesWithBlood()), kExitTimeout);
    });
    // Frame time as the user sees it: the interval between consecutive frames (the
    // view's timer caps it at ~60 fps), with the time spent in paintGL beside it.
    QElapsedTimer frameClock;
    std::vector<double> intervals;
    std::optional<std::uint64_t> narrativeShownAt; // the frame at which the narrative moment was set
    std::optional<std::uint64_t> heldAt;           // the last frame at which a node's hold was still pending
    QElapsedTimer exportClock;
    widgets::NarrativeVideoExport exporter(view, workspace->overlays(), workspace->playback());
    QObject::connect(&exporter, &widgets::NarrativeVideoExport::progress, [&](double f) {
        std::cerr << "\ratrium: exporting " << int(100 * f) << " % (" << exporter.framesDone() << "/" << exporter.frameCount()
                  << " frames)" << std::flush;
    });
    QObject::connect(&exporter, &widgets::NarrativeVideoExport::finished, [&](const QString& error) {
        std::cerr << "\n";
        if (!error.isEmpty()) fail(parser.value("export-video") + ": " + error);
        std::cout << nlohmann::json{{"video", parser.value("export-video").toStdString()},
                                    {"frames", exporter.frameCount()},
                                    {"fps", fps},
                                    {"width", size.width()},
                                    {"height", size.height()},
                                    {"seconds", exportClock.elapsed() / 1000.0},
                                    {"frames_per_second", exporter.frameCount() / std::max(exportClock.elapsed() / 1000.0, 1e-3)},
                                    {"render_ms_p50", percentile(exporter.renderMs(), 0.5)},
                                    {"software_renderer", view->softwareRenderer()},
                                    {"offscreen", view->offscreen()}}
                         .dump()
                  << std::endl;
        std::exit(0);
    });
    QObject::connect(view, &widgets::SceneView::frameRendered, [&] {
        if (auto* r = view->runner(); r && r->state() == widgets::SimulationRunner::State::Failed)
            fail("the simulation stopped: " + QString::fromStdString(r->failure()), kExitBloodFailed);
        if (view->framesWithBlood() < std::uint64_t(afterFrames)) return;
        if (const auto shown = view->shownSnapshot(); afterSeconds > 0.0 && (!shown || shown->simulatedSeconds < afterSeconds))
            return;
        if (exportVideo) {
            if (exporter.running()) return;
            if (auto why = view->outputGate().refuseVideo(size)) fail(*why, kExitRefused);
            try {
                exportClock.start();
                exporter.start(parser.value("export-video"), size, fps);
            } catch (const std::exception& e) {
                fail(parser.value("export-video") + ": " + QString::fromStdString(e.what()));
            }
            return;
        }
        if (screenshot && parser.isSet("narrative") && !narrativeShownAt) {
            // The moment first, then a few frames for the labels to find the wall.
            workspace->playback()->seek(at);
            narrativeShownAt = view->framesRendered();
            return;
        }
        if (narrativeShownAt && view->framesRendered() < *narrativeShownAt + 3) return;
        // A node that holds the heart at a phase: the beat goes on to it first (up to a
        // cycle), and the picture waits until the blood and the wall are there.
        if (narrativeShownAt) {
            if (const widgets::BloodSource* blood = view->bloodSource(); blood && blood->pendingHold()) {
                heldAt = view->framesRendered();
                return;
            }
            if (heldAt && view->framesRendered() < *heldAt + 2) return;
        }
        if (screenshot) {
            const QString path = parser.value("screenshot");
            try {
                if (auto why = view->outputGate().refuseImage(size)) fail(*why, kExitRefused);
                QImage image = view->renderImage(size);
                workspace->overlays()->paintOnto(image);
                // Whole or not at all: a full disk leaves no truncated PNG under the name.
                QSaveFile file(path);
                if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit())
                    fail(path + ": could not write the screenshot (" + file.errorString() + ")", kExitWriteFailed);
            } catch (const std::exception& e) {
                fail(e.what(), kExitWriteFailed);
            }
            nlohmann::json out{{"screenshot", path.toStdString()},
                               {"width", size.width()},
                               {"height", size.height()},
                               {"particles", view->shownSnapshot()->particles()},
                               {"simulated_seconds", view->shownSnapshot()->simulatedSeconds},
                               // Blow-ups after which the blood was started again.
                               {"restarts", view->runner() ? view->runner()->restarts() : 0},
                               {"shell_triangles", view->shellTriangles()},
                               {"seconds_to_first_heart", window.secondsToFirstHeart()},
                               {"heart_cache", window.heartCacheStatus()},
                               {"offscreen", view->offscreen()},
                               {"gl_renderer", view->glRenderer()},
                               {"lecture", window.lectureUi()->lecture()
                                               ? nlohmann::json(window.lectureUi()->lecture()->title().toStdString())
                                               : nlohmann::json()}};
            if (narrativeShownAt) {
                const narrative::PlayerFrame f = workspace->playback()->frame();
                out["narrative"] = narrativeNumber;
                out["at"] = at;
                out["node"] = f.node + 1;
                out["overlay_alpha"] = f.overlayAlpha;
                out["transition"] = f.stage == narrative::PlayerStage::Transition;
                out["cycle_phase"] = view->shownSnapshot()->cyclePhase;
            }
            std::cout << out.dump() << std::endl;
            std::exit(0);
        }
        if (frameClock.isValid()) intervals.push_back(frameClock.nsecsElapsed() / 1e6);
        frameClock.restart();
        if (intervals.size() < std::size_t(measure)) return;
        const auto& paints = view->recentFrameTimesMs();
        const std::vector<double> paint(paints.end() - std::min<std::ptrdiff_t>(measure, std::ptrdiff_t(paints.size())),
                                        paints.end());
        const auto snap = view->shownSnapshot();
        std::cout << nlohmann::json{{"width", size.width()},
                                    {"height", size.height()},
                                    {"fluid", view->fluidMode() == widgets::FluidMode::Surface ? "surface" : "spheres"},
                                    {"flow", snap->baked ? "baked" : "live"},
                                    {"particles", snap->particles()},
                                    {"wall_triangles", snap->wallTriangles.size() / 3},
                                    {"frames", intervals.size()},
                                    {"frame_ms_p50", percentile(intervals, 0.5)},
                                    {"frame_ms_p95", percentile(intervals, 0.95)},
                                    {"fps_p50", 1000.0 / std::max(percentile(intervals, 0.5), 1e-6)},
                                    {"paint_ms_p50", percentile(paint, 0.5)},
                                    {"sim_steps_per_s", snap->stepsPerSecond},
                                    {"restarts", view->runner() ? view->runner()->restarts() : 0},
                                    {"software_renderer", view->softwareRenderer()},
                                    {"gl_renderer", view->glRenderer()},
                                    {"offscreen", view->offscreen()},
                                    {"backend", snap->backend},
                                    {"sim_thread_nice", view->runner() ? view->runner()->threadNiceness() : 0}}
                         .dump()
                  << std::endl;
        std::exit(0);
    });
    return app.exec();
}
