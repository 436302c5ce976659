#include "widgets/view/SceneView.h"
#include "sim/heart/MeshInterpolation.h"

#include "widgets/view/BloodSpheres.h"
#include "widgets/view/ColorLegend.h"
#include "widgets/view/EglContext.h"
#include "widgets/view/FluidSurface.h"
#include "widgets/view/HeartWall.h"
#include "widgets/view/HudOverlay.h"
#include "widgets/view/SceneRenderer.h"
#include "widgets/lecture/ResourceGizmo.h"
#include "widgets/view/BloodSource.h"
#include "widgets/flow/SimulationRunner.h"
#include "widgets/media/VideoRecorder.h"
#include "widgets/view/ViewOverlay.h"
#include "widgets/view/WallAnchor.h"
#include "widgets/flow/WorkerPool.h"

#include <QOpenGLContext>
#include <QPainter>
#include <QThreadPool>

#include <osgUtil/IntersectionVisitor>
#include <osgUtil/LineSegmentIntersector>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace atrium::widgets {
namespace {

constexpr double kFieldOfViewDeg = SceneView::kFieldOfViewDeg;

osg::Vec3d toOsg(const narrative::Vec3& v) { return {v.x, v.y, v.z}; }

} // namespace

SceneView::SceneView(QWidget* parent)
    : QOpenGLWidget(parent), renderer_(std::make_unique<SceneRenderer>()), wall_(&renderer_->wall()),
      shellWall_(&renderer_->shellWall()), leaflets_(&renderer_->leaflets()), blood_(&renderer_->blood()),
      fluid_(&renderer_->fluid()), hud_(new HudOverlay(this)), legend_(new ColorLegend(this)) {
    setObjectName("sceneView");
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumSize(320, 240);

    camera_.setMode(narrative::CameraMode::Orbit);
    camera_.orbit().setVerticalFieldOfView(kFieldOfViewDeg * std::numbers::pi / 180.0);
    showLegend();
    hud_->move(10, 18);
    addOverlay(hud_, hud_);
    addOverlay(legend_, legend_);
    updateBloodVisibility();

    timer_.setInterval(16);
    connect(&timer_, &QTimer::timeout, this, &SceneView::advanceFrame);
    timer_.start();
    clock_.start();
    fpsClock_.start();
}

SceneView::~SceneView() {
    // The renderer releases its OpenGL objects with its context current.
    if (offscreen_) {
        try {
            makeOffscreenCurrent();
            renderer_.reset();
        } catch (const EglError&) {
            // The context is lost: its objects go with it.
        }
        offscreen_->doneCurrent();
        return;
    }
    makeCurrent();
    renderer_.reset();
    doneCurrent();
}

void SceneView::renderOffscreen(std::unique_ptr<EglContext> context) {
    if (renderer_->realized()) throw std::logic_error("SceneView::renderOffscreen after the view was drawn");
    offscreen_ = std::move(context);
    makeOffscreenCurrent();
    const auto [pw, ph] = pixels(width(), height());
    renderer_->realize(QSize(pw, ph));
    rendererReady(renderer_->glRenderer());
    offscreen_->doneCurrent();
}

void SceneView::makeOffscreenCurrent() {
    // GLVND lets a thread have one API's context current: a GLX context Qt left
    // current (an offscreen platform that has GLX) is released first.
    if (QOpenGLContext* qt = QOpenGLContext::currentContext()) qt->doneCurrent();
    offscreen_->makeCurrent();
}

void SceneView::rendererReady(std::string glRenderer) {
    // Drawing in software competes with the simulation for the same cores: measured on
    // 2 cores, the simulation at normal priority held the view at ~17 fps.
    glRenderer_ = std::move(glRenderer);
    softwareRenderer_ =
        glRenderer_.find("llvmpipe") != std::string::npos || glRenderer_.find("softpipe") != std::string::npos;
    if (source_ && softwareRenderer_) source_->yieldToDrawing();
}

void SceneView::setBloodSource(std::shared_ptr<BloodSource> source) {
    if (source_ && source_ != source) {
        // Stopping may wait for a step or a stage of the blood's preparation: not here.
        source_->requestStop();
        workerPool().start([old = std::move(source_)]() mutable { old.reset(); });
    }
    source_ = std::move(source);
    if (source_) {
        // Spheres of half a spacing touch their neighbours at rest density.
        const auto spacing = float(source_->particleSpacingMm());
        fluid_->setParticleSpacingMm(spacing);
        blood_->setRadiusMm(0.5f * spacing);
    }
    shown_.reset();
    shownPublication_ = 0;
    framesWithBlood_ = 0;
    if (source_ && softwareRenderer_) source_->yieldToDrawing();
}

SimulationRunner* SceneView::runner() const { return dynamic_cast<SimulationRunner*>(source_.get()); }

void SceneView::frameHeart(const narrative::Vec3& lo, const narrative::Vec3& hi) {
    heartCenter_ = (lo + hi) * 0.5;
    const double radius = 0.5 * length(hi - lo);
    heartRadius_ = radius > 0.0 && std::isfinite(radius) ? radius : 1.0;
    renderer_->setHeartRadius(heartRadius_);
    const double distance = heartRadius_ / std::tan(0.5 * kFieldOfViewDeg * std::numbers::pi / 180.0) * 1.05;
    // From the front left and a little above, so the heart reads as a 3D body.
    const narrative::Vec3 eye = heartCenter_ + narrative::Vec3{-distance * 0.45, -distance * 0.85, distance * 0.28};
    camera_.orbit().setDistanceLimits(heartRadius_ * 0.05, heartRadius_ * 20.0);
    camera_.usim().setSpeed(0.0);
    camera_.usim().setMaxSpeed(heartRadius_ * 1.5);
    camera_.usim().setAcceleration(heartRadius_ * 0.75);
    camera_.firstPerson().setMaxSpeed(heartRadius_ * 0.75);
    camera_.setHome(eye, heartCenter_);
    goHome();
    if (clipping_) updateClipPlane();
}

void SceneView::setNavigationMode(narrative::CameraMode mode) {
    camera_.setMode(mode);
    updateCursor();
}

void SceneView::goHome() {
    camera_.goHome();
    updateCursor();
}

void SceneView::setColorQuantity(ColorQuantity quantity) {
    quantity_ = quantity;
    if (fixedRanges_[int(quantity)]) range_ = *fixedRanges_[int(quantity)];
    else if (shown_ && shown_->values(quantity)) range_ = rangeTarget_ = automaticRange(*shown_->values(quantity));
    showLegend();
    updateBloodVisibility();
    if (shown_) blood_->update(*shown_, quantity_, range_);
}

void SceneView::setFixedColorRange(ColorQuantity quantity, std::optional<ColorRange> range) {
    if (range && !(range->max > range->min)) throw std::invalid_argument("a colour range needs max > min");
    fixedRanges_[int(quantity)] = range;
    if (quantity == quantity_) setColorQuantity(quantity);
}

void SceneView::showLegend() {
    using Kind = ColorLegend::RangeKind;
    legend_->setMap(quantity_, range_,
                    fixedRanges_[int(quantity_)] ? Kind::Fixed : quantity_ == ColorQuantity::Speed ? Kind::PerBeat : Kind::Automatic);
    legend_->move(width() - legend_->width() - 10, height() / 2 - legend_->height() / 2);
}

void SceneView::setShell(std::shared_ptr<const heart::MovingHeartMesh> shell) {
    shell_ = std::move(shell);
    shellTopology_ = 0;
    shellWall_->setVisible(shell_ != nullptr);
    updateShell();
}

std::size_t SceneView::shellTriangles() const { return shell_ ? shellWall_->triangles() : 0; }

void SceneView::updateShell() {
    if (!shell_ || !shown_) return;
    // Sampled at the phase of the blood on screen, as the wall in the snapshot is.
    sph::TriangleMesh mesh;
    std::vector<sph::Vec3> velocity;
    const int phase = shell_->sample(shown_->cyclePhase, 1.0, mesh, velocity);
    std::vector<float> xyz(3 * mesh.vertices.size());
    for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
        xyz[3 * v] = mesh.vertices[v].x;
        xyz[3 * v + 1] = mesh.vertices[v].y;
        xyz[3 * v + 2] = mesh.vertices[v].z;
    }
    const auto topology = std::uint64_t(phase) + 1;
    std::vector<std::uint32_t> triangles;
    if (topology != shellTopology_) {
        for (const auto& t : mesh.triangles) triangles.insert(triangles.end(), t.begin(), t.end());
        shellTriangles_ = triangles;
    }
    shellWall_->update(xyz, triangles, topology);
    shellVertexMm_ = std::move(xyz);
    shellTopology_ = topology;
}

void SceneView::setValveLeaflets(std::vector<heart::LeafletValve> valves) {
    leafletValves_ = std::move(valves);
    leaflets_->setVisible(!leafletValves_.empty());
    leaflets_->update({}, {}, 0); // new triangles with the next update
    updateLeaflets();
}

std::size_t SceneView::leafletTriangles() const { return leafletValves_.empty() ? 0 : leaflets_->triangles(); }

std::vector<double> SceneView::valveOpenings() const {
    std::vector<double> openings;
    for (const heart::LeafletValve& v : leafletValves_) openings.push_back(shown_ ? heart::valveOpening(v.open, shown_->cyclePhase) : 0.0);
    return openings;
}

void SceneView::updateLeaflets() {
    if (leafletValves_.empty() || !shown_) return;
    // At the phase of the blood on screen, as the wall in the snapshot is.
    std::vector<float> xyz;
    std::vector<std::uint32_t> triangles;
    const std::vector<double> openings = valveOpenings();
    for (std::size_t i = 0; i < leafletValves_.size(); ++i) heart::appendLeaflets(leafletValves_[i], openings[i], xyz, triangles);
    leaflets_->update(xyz, triangles, 1); // the triangles change only with the valves
}

void SceneView::setWallOpacity(float opacity) { wall_->setOpacity(std::clamp(opacity, 0.f, 1.f)); }
void SceneView::setWireframe(bool on) { wall_->setWireframe(on); }
void SceneView::setBloodVisible(bool visible) {
    bloodVisible_ = visible;
    updateBloodVisibility();
}

void SceneView::setFluidMode(FluidMode mode) {
    fluidMode_ = mode;
    updateBloodVisibility();
}

void SceneView::updateBloodVisibility() {
    // Node masks: the hidden rendering is not even culled, its passes cost nothing.
    blood_->setVisible(bloodVisible_ && fluidMode_ == FluidMode::Spheres);
    fluid_->setVisible(bloodVisible_ && fluidMode_ == FluidMode::Surface);
    // Spheres and surface show the same colouring, with its legend.
    fluid_->setColored(quantity_ != ColorQuantity::Blood);
    legend_->setVisible(bloodVisible_ && quantity_ != ColorQuantity::Blood);
}

void SceneView::setHudVisible(bool visible) { hud_->setVisible(visible); }

void SceneView::setOverlayTop(int y) { hud_->move(10, std::max(y, 0) + 10); }

void SceneView::setClipping(bool on, double offset) {
    clipping_ = on;
    clipOffset_ = std::clamp(offset, -1.0, 1.0);
    updateClipPlane();
}

void SceneView::updateClipPlane() {
    if (!clipping_) {
        wall_->setClipPlane(false);
        shellWall_->setClipPlane(false);
        leaflets_->setClipPlane(false);
        return;
    }
    // Normal from the camera towards the centre: the near half is cut away.
    narrative::Vec3 n = heartCenter_ - camera_.pose().position();
    const double len = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
    n = len > 1e-9 ? narrative::Vec3{n.x / len, n.y / len, n.z / len} : camera_.pose().forward();
    const narrative::Vec3 p = heartCenter_ + narrative::Vec3{n.x, n.y, n.z} * (clipOffset_ * heartRadius_);
    const osg::Vec4 plane(float(n.x), float(n.y), float(n.z), float(-(n.x * p.x + n.y * p.y + n.z * p.z)));
    wall_->setClipPlane(true, plane);
    shellWall_->setClipPlane(true, plane);
    leaflets_->setClipPlane(true, plane);
}

std::pair<int, int> SceneView::pixels(int w, int h) const {
    return {int(std::lround(w * devicePixelRatioF())), int(std::lround(h * devicePixelRatioF()))};
}

void SceneView::initializeGL() {
    if (offscreen_) return; // drawn on its own context (a platform with GLX may still call this)
    rendererReady(renderer_->glRenderer());
    const auto [pw, ph] = pixels(width(), height());
    renderer_->realize(QSize(pw, ph));
}

// The renderer follows the frame's size as it draws (SceneRenderer::render).
void SceneView::resizeGL(int, int) {}

void SceneView::paintEvent(QPaintEvent* e) {
    // Headless, Qt has no OpenGL to paint the widget with (its offscreen platform
    // crashes trying): the frames are drawn on the EGL context instead.
    if (!offscreen_) QOpenGLWidget::paintEvent(e);
}

void SceneView::resizeEvent(QResizeEvent* e) {
    QOpenGLWidget::resizeEvent(e);
    showLegend();
}

narrative::ViewFrustum SceneView::viewFrustum() const {
    narrative::ViewFrustum f;
    f.verticalFov = kFieldOfViewDeg * std::numbers::pi / 180.0;
    f.aspect = double(std::max(width(), 1)) / std::max(height(), 1);
    f.nearDistance = heartRadius_ * 0.005;
    f.farDistance = heartRadius_ * 60.0;
    return f;
}

std::optional<narrative::Vec3> SceneView::pickWall(QPoint at) const {
    const narrative::CameraPose& pose = camera_.pose();
    const narrative::ViewFrustum f = viewFrustum();
    const double tanV = std::tan(0.5 * f.verticalFov), tanH = tanV * f.aspect;
    const double x = (2.0 * (at.x() + 0.5) / std::max(width(), 1) - 1.0) * tanH;
    const double y = (1.0 - 2.0 * (at.y() + 0.5) / std::max(height(), 1)) * tanV;
    const narrative::Vec3 direction = narrative::normalized(pose.forward() + pose.right() * x + pose.up() * y);
    const narrative::Vec3 start = pose.position() + direction * f.nearDistance;
    const narrative::Vec3 end = pose.position() + direction * f.farDistance;
    osg::ref_ptr<osgUtil::LineSegmentIntersector> ray =
        new osgUtil::LineSegmentIntersector(osgUtil::Intersector::MODEL, toOsg(start), toOsg(end));
    osgUtil::IntersectionVisitor visitor(ray.get());
    wall_->node()->accept(visitor);
    if (!ray->containsIntersections()) return std::nullopt;
    const osg::Vec3d p = ray->getFirstIntersection().getWorldIntersectPoint();
    return narrative::Vec3{p.x(), p.y(), p.z()};
}

void SceneView::showResourceGizmo(const narrative::Vec3& centre, double radius, const narrative::Vec3& target) {
    renderer_->gizmo().set(centre, radius, target);
    renderer_->gizmo().setVisible(true);
    update();
}

void SceneView::hideResourceGizmo() {
    renderer_->gizmo().setVisible(false);
    update();
}

void SceneView::paintGL() {
    if (offscreen_) return;
    const auto t0 = std::chrono::steady_clock::now();
    const auto [pw, ph] = pixels(width(), height());
    renderer_->render(defaultFramebufferObject(), QSize(pw, ph), camera_.pose());
    if (recorder_) captureVideoFrame(defaultFramebufferObject(), pw, ph);
    paintOverlays();
    finishFrame(t0);
}

void SceneView::renderOffscreenFrame() {
    const auto t0 = std::chrono::steady_clock::now();
    const auto [pw, ph] = pixels(width(), height());
    try {
        makeOffscreenCurrent();
        const unsigned fbo = renderer_->offscreenFramebuffer(QSize(pw, ph));
        renderer_->render(fbo, QSize(pw, ph), camera_.pose());
        if (recorder_) captureVideoFrame(fbo, pw, ph);
    } catch (const std::exception& e) {
        offscreen_->doneCurrent();
        Q_EMIT renderFailed(QString::fromStdString(e.what()));
        return;
    }
    offscreen_->doneCurrent();
    finishFrame(t0);
}

void SceneView::finishFrame(std::chrono::steady_clock::time_point t0) {
    frameTimes_.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (frameTimes_.size() > 600) frameTimes_.pop_front();
    ++frames_;
    if (shown_ && shown_->particles() > 0) ++framesWithBlood_;
    Q_EMIT frameRendered();
}

void SceneView::addOverlay(QWidget* widget, const ViewOverlay* overlay, OverlayLevel level) {
    // After the last of its level: annotations stay under the narrative's overlays.
    const auto at = std::find_if(overlays_.begin(), overlays_.end(), [level](const OverlaySlot& o) { return o.level > level; });
    overlays_.insert(at, OverlaySlot{widget, overlay, level});
}

void SceneView::paintOverlays() {
    std::vector<std::pair<const ViewOverlay*, QRegion>> parts;
    for (const OverlaySlot& o : overlays_)
        if (o.widget && o.widget->isVisible())
            if (QRegion region = o.overlay->overlayRegion() & rect(); !region.isEmpty()) parts.emplace_back(o.overlay, region);
    if (parts.empty()) return;

    // QPainter's OpenGL engine draws from client-side arrays and leaves its own state
    // behind: OSG's buffers and arrays are unbound first, and afterwards the OpenGL
    // state is brought back to what OSG's record says it is.
    renderer_->beginForeignDrawing();
    {
        QPainter gl(this);
        const qreal ratio = devicePixelRatioF();
        for (const auto& [overlay, region] : parts)
            for (const QRect& r : region) {
                // Each part is painted in software, antialiased, then drawn as one image.
                QImage image(r.size() * ratio, QImage::Format_ARGB32_Premultiplied);
                image.setDevicePixelRatio(ratio);
                image.fill(Qt::transparent);
                QPainter p(&image);
                p.setRenderHint(QPainter::Antialiasing);
                p.translate(-r.topLeft());
                p.setClipRect(r);
                overlay->paintOverlay(p);
                p.end();
                gl.drawImage(r.topLeft(), image);
            }
    }
    renderer_->endForeignDrawing();
}

void SceneView::startRecording(const std::string& path) {
    const auto [pw, ph] = pixels(width(), height());
    if (auto why = outputGate_.refuseVideo(QSize(pw, ph))) throw std::runtime_error(why->toStdString());
    recorder_ = std::make_unique<VideoRecorder>(path, pw, ph, 30);
    recordingRefused_ = false;
    recordClock_.start();
}

std::unique_ptr<VideoRecorder> SceneView::stopRecording() { return std::move(recorder_); }

void SceneView::captureVideoFrame(unsigned fbo, int pw, int ph) {
    // A lecture that forbids video, opened while recording, keeps its frames out of it.
    if (auto why = outputGate_.refuseVideo(QSize(pw, ph))) {
        if (!recordingRefused_) Q_EMIT statusMessage("Recording paused: " + *why);
        recordingRefused_ = true;
        return;
    }
    recordingRefused_ = false;
    // The recording keeps the size it started with; frames of a resized view are skipped.
    if (pw != recorder_->sourceWidth() || ph != recorder_->sourceHeight()) return;
    std::vector<std::uint8_t> rgba(std::size_t(pw) * std::size_t(ph) * 4);
    renderer_->readRgba(fbo, QSize(pw, ph), rgba.data());
    recorder_->addFrame(std::move(rgba), recordClock_.elapsed() / 1000.0, true);
}

QImage SceneView::renderImage(QSize size, const std::optional<narrative::CameraPose>& from) {
    if (size.width() < 1 || size.height() < 1 || size.width() > kMaxImageSide || size.height() > kMaxImageSide)
        throw std::invalid_argument("image size must be between 1x1 and " + std::to_string(kMaxImageSide) + "x" +
                                    std::to_string(kMaxImageSide) + " pixels");
    if (outputGate_.hasLecture())
        if (auto why = outputGate_.refuseImage(size)) throw std::invalid_argument(why->toStdString());
    if (!renderer_->realized()) throw std::runtime_error("the view has not been shown yet");
    if (offscreen_) {
        makeOffscreenCurrent();
        try {
            QImage image = renderer_->renderImage(size, from ? *from : camera_.pose());
            offscreen_->doneCurrent();
            return image;
        } catch (...) {
            offscreen_->doneCurrent();
            throw;
        }
    }
    makeCurrent();
    QImage image = renderer_->renderImage(size, from ? *from : camera_.pose());
    doneCurrent();
    return image;
}

std::optional<QPointF> SceneView::project(const narrative::Vec3& p, QSizeF size) const {
    const narrative::CameraPose& pose = camera_.pose();
    const narrative::Vec3 d = p - pose.position();
    const double depth = dot(d, pose.forward());
    if (depth <= heartRadius_ * 0.005 || size.height() <= 0) return std::nullopt; // the near plane of applyCamera
    const double t = std::tan(0.5 * kFieldOfViewDeg * std::numbers::pi / 180.0);
    const double aspect = size.width() / size.height();
    const double x = dot(d, pose.right()) / (depth * t * aspect), y = dot(d, pose.up()) / (depth * t);
    return QPointF((x + 1.0) * 0.5 * size.width(), (1.0 - y) * 0.5 * size.height());
}

std::optional<narrative::Vec3> SceneView::pickWall(QPointF position) const {
    if (!shown_ || width() <= 0 || height() <= 0) return std::nullopt;
    const narrative::CameraPose& pose = camera_.pose();
    const double t = std::tan(0.5 * kFieldOfViewDeg * std::numbers::pi / 180.0);
    const double x = 2.0 * position.x() / width() - 1.0, y = 1.0 - 2.0 * position.y() / height();
    const narrative::Vec3 ray = pose.forward() + pose.right() * (x * t * width() / height()) + pose.up() * (y * t);
    return intersectWall(shown_->wallVertexMm, shown_->wallTriangles, pose.position(), ray);
}

std::size_t SceneView::surfacesCrossedTo(const narrative::Vec3& worldMm) const {
    if (!shown_) return 0;
    const narrative::Vec3 eye = camera_.pose().position();
    std::size_t n = wallCrossings(shown_->wallVertexMm, shown_->wallTriangles, eye, worldMm);
    if (shell_) n += wallCrossings(shellVertexMm_, shellTriangles_, eye, worldMm);
    return n;
}

void SceneView::advanceFrame() {
    const double elapsed = fixedDt_ ? *fixedDt_ : clock_.restart() / 1000.0;
    // A stalled frame must not fling the camera; the baked heart keeps true time.
    const double dt = std::clamp(elapsed, 0.0, 0.1);
    camera_.update(dt);
    Q_EMIT cameraAdvanced(dt);
    if (source_) source_->advance(elapsed);
    ++ticks_;
    const bool fresh = takeSnapshot();
    const bool eased = easeColorRange(elapsed);
    if (shown_ && (fresh || eased)) blood_->update(*shown_, quantity_, range_);
    if (clipping_) updateClipPlane();

    ++fpsFrames_;
    if (fpsClock_.elapsed() >= 500) {
        fps_ = 1000.0 * double(fpsFrames_) / double(fpsClock_.restart());
        fpsFrames_ = 0;
        QStringList status;
        if (backgroundStatus_) status << backgroundStatus_();
        if (!source_) {
            if (status.join("").isEmpty()) status << "no heart loaded";
        } else {
            status << QString::fromStdString(source_->status());
        }
        if (camera_.mode() != narrative::CameraMode::Orbit && !camera_.mouseCaptured()) status << "Space: take the mouse";
        status.removeAll(QString());
        hud_->show(fps_, shown_.get(), status.join(" | "));
    }
    if (offscreen_) renderOffscreenFrame();
    else update();
}

bool SceneView::takeSnapshot() {
    if (!source_ || source_->publications() == shownPublication_) return false;
    shownPublication_ = source_->publications();
    auto snap = source_->latest();
    if (!snap || snap == shown_) return false;
    const bool first = !shown_;
    shown_ = std::move(snap);
    wall_->update(*shown_);
    updateShell();
    updateLeaflets();
    if (const std::vector<float>* values = shown_->values(quantity_)) {
        rangeTarget_ = automaticRange(*values);
        const bool heldPerBeat = quantity_ == ColorQuantity::Speed; // not eased: it changes only between beats
        if (heldPerBeat && !fixedRanges_[int(quantity_)] && !(range_ == rangeTarget_)) {
            range_ = rangeTarget_;
            showLegend();
        } else if (first && !fixedRanges_[int(quantity_)]) { // the first snapshot sets the legend at once
            range_ = rangeTarget_;
            showLegend();
        }
    }
    return true;
}

ColorRange SceneView::automaticRange(const std::vector<float>& values) {
    const ColorRange robust = robustRange(quantity_, values);
    if (quantity_ != ColorQuantity::Speed) return robust;
    return speedRange_.update(shown_->cyclePhase, robust.max);
}

bool SceneView::easeColorRange(double seconds) {
    if (!shown_ || !shown_->values(quantity_) || fixedRanges_[int(quantity_)]) return false;
    if (range_.min == rangeTarget_.min && range_.max == rangeTarget_.max) return false;
    // Eased over wall-clock time, every frame, also while the blood stands still (a held
    // heart): the legend then settles on the values shown, the same on every screen that
    // shows them, whatever came before.
    range_ = smoothRange(range_, rangeTarget_, seconds);
    const float span = std::max(rangeTarget_.max - rangeTarget_.min, 1e-6f);
    if (std::abs(range_.min - rangeTarget_.min) < 1e-3f * span && std::abs(range_.max - rangeTarget_.max) < 1e-3f * span)
        range_ = rangeTarget_;
    showLegend();
    return true;
}


} // namespace atrium::widgets
