#pragma once
// The 3D view: hosts the scene's renderer (SceneRenderer: an OpenSceneGraph viewer
// drawing into a framebuffer object) in a QOpenGLWidget. It shows the heart wall and
// the blood of the latest simulation snapshot, drives the camera with the VSim
// controllers of narrative/ (uSim, first person, orbit), and hosts the HUD and the
// colour legend as overlays.
//
// Frames are paced by a timer (about 60 per second); each frame feeds the pending
// input to the active controller, advances it by the elapsed time, takes the newest
// snapshot if one arrived, and renders: in the widget, or - headless, without a
// display (renderOffscreen) - on an EGL context of its own, the widget never painted.

#include "narrative/CameraRig.h"
#include "narrative/ResourceActivation.h"
#include "sim/heart/ValveLeaflets.h"
#include "widgets/view/ColorMap.h"
#include "widgets/view/SceneRenderer.h"
#include "widgets/lecture/OutputGate.h"

#include <QElapsedTimer>
#include <QOpenGLWidget>
#include <QPointer>
#include <QTimer>

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace atrium::heart {
class MovingHeartMesh;
}

namespace atrium::widgets {

class BloodSource;
class BloodSpheres;
class ColorLegend;
class EglContext;
class FluidSurface;
class HeartWall;
class HudOverlay;
class SimulationRunner;
class VideoRecorder;
struct BloodSnapshot;
class ViewOverlay;

/// How the blood is drawn: one sphere per particle (which shows the colour quantity), or
/// a smooth blood-red liquid surface in screen space (FluidSurface).
enum class FluidMode { Spheres, Surface };

class SceneView : public QOpenGLWidget {
    Q_OBJECT
public:
    /// Screenshots larger than this on either side are refused.
    static constexpr int kMaxImageSide = OutputGate::kMaxSide;

    explicit SceneView(QWidget* parent = nullptr);
    ~SceneView() override;

    /// Headless: every frame is drawn on `context` (made current for the frame and
    /// released after it) into a framebuffer of the view's size, and renderImage draws
    /// there too; the widget itself is never painted, so its window must be shown with
    /// Qt::WA_DontShowOnScreen (Qt's offscreen platform has no OpenGL for it). Before
    /// the view is first drawn. Throws EglError when the context cannot be made current.
    void renderOffscreen(std::unique_ptr<EglContext> context);
    bool offscreen() const { return offscreen_ != nullptr; }

    /// Where the drawn blood comes from (null: none): the live simulation or a baked
    /// beat. The source it replaces is stopped and destroyed on a worker thread, so
    /// that the window never waits for it. Under a software rasteriser the source
    /// yields the cores to drawing (BloodSource::yieldToDrawing).
    void setBloodSource(std::shared_ptr<BloodSource> source);
    BloodSource* bloodSource() const { return source_.get(); }
    /// A display-only shell around the heart (an epicardium; null: none), drawn paler and
    /// more transparent than the wall, at the phase of the blood on screen.
    void setShell(std::shared_ptr<const heart::MovingHeartMesh> shell);
    std::size_t shellTriangles() const;
    /// Valve leaflets to show over the blood (display only), opened and closed at the
    /// phase on screen by their valves' intervals; empty: none.
    void setValveLeaflets(std::vector<heart::LeafletValve> valves);
    std::size_t leafletTriangles() const;
    /// How open each of those valves is at the phase on screen (0 shut .. 1 open).
    std::vector<double> valveOpenings() const;
    /// Frames a new heart: its bounds (any units and position, e.g. over the whole
    /// cycle) set the home view, the orbit centre, the zoom limits, flight speeds and
    /// the near and far planes; the camera goes home.
    void frameHeart(const narrative::Vec3& lo, const narrative::Vec3& hi);
    narrative::Vec3 heartCenter() const { return heartCenter_; }
    double heartRadius() const { return heartRadius_; }
    /// A line for the HUD about work in the background (loading, baking); asked at
    /// every HUD refresh, empty for none.
    void setBackgroundStatus(std::function<QString()> status) { backgroundStatus_ = std::move(status); }
    /// Whether OpenGL draws in software here (Mesa llvmpipe or softpipe); known once the
    /// view has been shown.
    bool softwareRenderer() const { return softwareRenderer_; }
    /// The OpenGL renderer's name (GL_RENDERER), known once the view is shown.
    const std::string& glRenderer() const { return glRenderer_; }
    /// The live simulation, when that is the source (else null).
    SimulationRunner* runner() const;

    /// Switches among uSim, first-person and orbit, keeping the pose.
    void setNavigationMode(narrative::CameraMode mode);
    narrative::CameraMode navigationMode() const { return camera_.mode(); }
    narrative::CameraRig& camera() { return camera_; }
    /// The home view: the whole heart, seen from the front, orbiting its centre.
    void goHome();

    void setColorQuantity(ColorQuantity quantity);
    ColorQuantity colorQuantity() const { return quantity_; }
    /// The colour range of `quantity`: fixed at `range`, or automatic (nullopt: all but
    /// the most extreme 2 % of the values, eased over time). Kept per quantity.
    void setFixedColorRange(ColorQuantity quantity, std::optional<ColorRange> range);
    std::optional<ColorRange> fixedColorRange(ColorQuantity quantity) const { return fixedRanges_[int(quantity)]; }
    /// The range the blood is coloured with now.
    ColorRange colorRange() const { return range_; }
    void setWallOpacity(float opacity);
    void setWireframe(bool on);
    /// Cuts away the half of the wall nearer the camera, the cut through the heart's
    /// centre shifted by `offset` times its radius (-1..1).
    void setClipping(bool on, double offset = 0.0);
    bool clipping() const { return clipping_; }
    double clipOffset() const { return clipOffset_; }
    void setBloodVisible(bool visible);
    bool bloodVisible() const { return bloodVisible_; }
    void setFluidMode(FluidMode mode);
    FluidMode fluidMode() const { return fluidMode_; }
    void setHudVisible(bool visible);
    /// Keeps the HUD below `y` (widget coordinates), e.g. clear of the control bar.
    void setOverlayTop(int y);
    /// Where an overlay is painted: the view's own annotations (chamber labels, triad,
    /// cycle panel) under what a narrative shows, whichever was added first.
    enum class OverlayLevel { Annotation, Narrative };
    /// Paints `overlay` into every frame, over the scene, while `widget` (its widget,
    /// a child of this view) is visible; by level, then in the order added. See
    /// ViewOverlay.h.
    void addOverlay(QWidget* widget, const ViewOverlay* overlay, OverlayLevel level = OverlayLevel::Annotation);

    /// Tests: every frame advances the controllers by exactly `dt` seconds.
    void setFixedFrameTime(std::optional<double> dt) { fixedDt_ = dt; }
    /// Frames rendered since start, and since the first snapshot with blood was drawn.
    std::uint64_t framesRendered() const { return frames_; }
    /// Camera updates (timer ticks) since start: one controller update(dt) each.
    std::uint64_t cameraTicks() const { return ticks_; }
    std::uint64_t framesWithBlood() const { return framesWithBlood_; }
    double framesPerSecond() const { return fps_; }
    /// Render times of the last frames, ms (paintGL wall time).
    const std::deque<double>& recentFrameTimesMs() const { return frameTimes_; }
    std::shared_ptr<const BloodSnapshot> shownSnapshot() const { return shown_; }

    /// The camera's field of view (resource activation, Poyart 2016 5.5).
    narrative::ViewFrustum viewFrustum() const;
    /// The point of the heart wall (at the phase on screen) under the widget position
    /// `at`, by a ray cast from the camera; nullopt when the ray misses the wall.
    std::optional<narrative::Vec3> pickWall(QPoint at) const;
    /// The resource editor's sphere (c, r) and target t in the view, or none.
    void showResourceGizmo(const narrative::Vec3& centre, double radius, const narrative::Vec3& target);
    void hideResourceGizmo();

    /// What may leave the app (screenshots, recordings, video exports) and at what
    /// size: asked by renderImage and startRecording too. LectureUi binds it.
    OutputGate& outputGate() { return outputGate_; }
    const OutputGate& outputGate() const { return outputGate_; }

    /// Renders the view at `size` (any size up to kMaxImageSide) into an image,
    /// without the overlays. Throws std::invalid_argument for a bad size, or one
    /// that the open lecture's outputGate() refuses.
    /// With `from`, renders from that pose instead of the camera's (a narrative node's
    /// thumbnail).
    QImage renderImage(QSize size, const std::optional<narrative::CameraPose>& from = std::nullopt);

    /// Vertical field of view of the camera, degrees.
    static constexpr double kFieldOfViewDeg = SceneRenderer::kFieldOfViewDeg;
    /// Where the world point `worldMm` appears in a picture of `size` (e.g. the widget's
    /// size, or a screenshot's) taken from the current camera: pixels from the top-left
    /// corner, or nullopt when it lies behind the near plane.
    std::optional<QPointF> project(const narrative::Vec3& worldMm, QSizeF size) const;
    /// The nearest point of the shown heart wall under `position` (widget pixels), or
    /// nullopt when the ray from the camera through it misses the wall.
    std::optional<narrative::Vec3> pickWall(QPointF position) const;
    /// How many times the sight line from the camera to `worldMm` crosses the surfaces
    /// shown (the wall at the phase on screen, and the shell): 1 for a point inside a
    /// chamber seen from outside, 0 from inside it, 2 or more for one behind a wall.
    std::size_t surfacesCrossedTo(const narrative::Vec3& worldMm) const;

    /// Starts recording every rendered frame of the view (at 30 fps, its pixel size)
    /// to `path`. Throws std::runtime_error naming the file when it cannot be written,
    /// or with the outputGate()'s reason when the open lecture forbids it.
    void startRecording(const std::string& path);
    /// Stops recording and hands over the recorder, whose finish() writes the rest of
    /// the file (slow: run it off the UI thread). Null when not recording.
    std::unique_ptr<VideoRecorder> stopRecording();
    bool isRecording() const { return recorder_ != nullptr; }

Q_SIGNALS:
    void frameRendered();
    /// Every frame after the camera controllers moved by `dt` seconds and before the
    /// view is drawn: a narrative being played sets the camera's pose here.
    void cameraAdvanced(double dt);
    void mouseCaptureChanged(bool captured);
    void statusMessage(const QString& text);
    /// Headless: a frame could not be drawn on the offscreen context (why).
    void renderFailed(const QString& why);

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void keyReleaseEvent(QKeyEvent* e) override;
    void focusOutEvent(QFocusEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void advanceFrame();
    /// Shows the source's latest snapshot if it is new (true); its blood is then to be updated.
    bool takeSnapshot();
    /// Eases the automatic colour range `seconds` further towards the shown values' (true: moved).
    bool easeColorRange(double seconds);
    /// The automatic range of the current quantity for `values` of the shown snapshot:
    /// the speed's is held per beat (BeatSpeedRange), the others' follow the values.
    ColorRange automaticRange(const std::vector<float>& values);
    void send(const narrative::InputEvent& event);
    void updateCursor();
    void updateClipPlane();
    void captureVideoFrame(unsigned fbo, int pixelWidth, int pixelHeight);
    /// Headless: draws the frame on the EGL context (renderOffscreen).
    void renderOffscreenFrame();
    /// Makes the EGL context current, releasing a Qt context that is.
    void makeOffscreenCurrent();
    /// The renderer's context is known: GL_RENDERER, and whether it draws in software.
    void rendererReady(std::string glRenderer);
    /// After a frame was drawn: its time, the counters, frameRendered.
    void finishFrame(std::chrono::steady_clock::time_point started);
    /// Device pixels of a size in widget units (high-DPI screens).
    std::pair<int, int> pixels(int w, int h) const;
    void updateBloodVisibility();
    /// Draws the visible overlays into the frame with a QPainter, keeping OSG's record
    /// of the OpenGL state true across it.
    void paintOverlays();

    std::shared_ptr<BloodSource> source_;
    std::shared_ptr<const BloodSnapshot> shown_;
    std::uint64_t shownPublication_ = 0;

    std::unique_ptr<EglContext> offscreen_; // headless only; outlives the renderer
    std::unique_ptr<SceneRenderer> renderer_;
    // The renderer's parts, which the view updates from the snapshot and its settings.
    HeartWall* wall_ = nullptr;
    HeartWall* shellWall_ = nullptr;
    std::shared_ptr<const heart::MovingHeartMesh> shell_;
    std::uint64_t shellTopology_ = 0; // the shell's phase whose triangles are uploaded, + 1
    std::vector<float> shellVertexMm_;         // the shell on screen, for surfacesCrossedTo
    std::vector<std::uint32_t> shellTriangles_;
    void updateShell();
    HeartWall* leaflets_ = nullptr;
    std::vector<heart::LeafletValve> leafletValves_;
    void updateLeaflets();
    BloodSpheres* blood_ = nullptr;
    FluidSurface* fluid_ = nullptr; // shares blood_'s particle geometry
    HudOverlay* hud_ = nullptr;
    ColorLegend* legend_ = nullptr;

    narrative::CameraRig camera_;
    std::optional<QPoint> pendingWarp_; // where we moved the pointer ourselves
    double heartRadius_ = 60.0;    // mm, from the wall's bounds
    narrative::Vec3 heartCenter_;
    std::function<QString()> backgroundStatus_;

    ColorQuantity quantity_ = ColorQuantity::Blood;
    ColorRange range_{0.f, 1.f};
    ColorRange rangeTarget_{0.f, 1.f}; ///< the automatic range of the values shown, range_ eases to it
    std::array<std::optional<ColorRange>, 4> fixedRanges_;
    BeatSpeedRange speedRange_; ///< the speed colouring's automatic range, held per beat
    void showLegend();
    FluidMode fluidMode_ = FluidMode::Spheres;
    bool bloodVisible_ = true;
    bool clipping_ = false;
    double clipOffset_ = 0.0;

    struct OverlaySlot {
        QPointer<QWidget> widget;
        const ViewOverlay* overlay = nullptr;
        OverlayLevel level = OverlayLevel::Annotation;
    };
    std::vector<OverlaySlot> overlays_; // in painting order
    QTimer timer_;
    QElapsedTimer clock_;
    std::optional<double> fixedDt_;
    std::uint64_t frames_ = 0, framesWithBlood_ = 0, ticks_ = 0;
    double fps_ = 0.0;
    QElapsedTimer fpsClock_;
    std::uint64_t fpsFrames_ = 0;
    std::deque<double> frameTimes_;
    bool captured_ = false;
    bool softwareRenderer_ = false;
    std::string glRenderer_;
    std::unique_ptr<VideoRecorder> recorder_;
    OutputGate outputGate_;
    bool recordingRefused_ = false; ///< the gate keeps the frames out of the recording (said once)
    QElapsedTimer recordClock_;
};

} // namespace atrium::widgets
