// MainWindow's blood: the live simulation, or a baked beat played at the true heart rate
// (docs/baked-flow.md), one click apart (Simulation > Real-time flow, T).

#include "widgets/window/MainWindow.h"

#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/flow/FlowBaker.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/SimulationRunner.h"

#include <QAction>
#include <QFileDialog>
#include <QMessageBox>
#include <QScopeGuard>
#include <QStatusBar>

#include <utility>

namespace atrium::widgets {

bool MainWindow::realTimeFlow() const { return realTime_->isChecked(); }

void MainWindow::setRealTimeFlow(bool on) {
    realTimeBeforeLecture_.reset(); // the user's choice from now on
    if (realTime_->isChecked() != on) return realTime_->setChecked(on); // comes back here through toggled
    startBlood();
}

std::string MainWindow::flowKey() const {
    const std::string heartKey = heartIdentity_.empty() ? sourceLabel(source_).toStdString() : heartIdentity_;
    const RunnerSettings rs = choices_.runnerSettings(poolMl_);
    return heart::flowCacheKey(heartKey, rs.cycleSeconds, rs.simulation, options_.bake);
}

void MainWindow::offerLectureFlow(std::shared_ptr<const heart::BakedBeat> beat, const QString& error) {
    if (supplied_ && supplied_->fromLecture) supplied_.reset(); // the previous lecture's
    if (!error.isEmpty()) return refuseFlow("The lecture's baked flow cannot be played: " + error, false);
    if (!beat) return;
    supplied_ = SuppliedFlow{std::move(beat), "the lecture", true, true, true};
}

void MainWindow::refuseFlow(const QString& message, bool fatal) {
    const QString fallback =
        message + (realTimeFlow() ? "\nA beat is baked for this heart instead." : "\nThe blood is simulated live.");
    statusBar()->showMessage(QString(fallback).replace('\n', ' '));
    Q_EMIT flowRefused(message);
    if (fatal) Q_EMIT loadFailed(message); // --flow-file: a headless run fails
    if (options_.headless) return;
    // Not modal: the lecture opens on meanwhile.
    auto* box = new QMessageBox(QMessageBox::Warning, "Real-time flow", fallback, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::checkSuppliedFlow() {
    if (flowFile_) {
        const std::filesystem::path file = *std::exchange(flowFile_, std::nullopt);
        try {
            supplied_ = SuppliedFlow{std::make_shared<const heart::BakedBeat>(heart::BakedBeat::load(file)),
                                     QString::fromStdString(file.filename().string()), false, false, false};
        } catch (const std::exception& e) {
            const QSignalBlocker block(realTime_);
            realTime_->setChecked(false);
            return refuseFlow(QString::fromStdString(e.what()), true);
        }
    }
    if (!supplied_ || supplied_->awaitingHeart) return;
    const std::string bakedIn = heart::bakedHeartOf(*supplied_->beat);
    if (bakedIn != heartIdentity_) {
        const SuppliedFlow refused = *std::exchange(supplied_, std::nullopt);
        if (!refused.fromLecture) {
            const QSignalBlocker block(realTime_);
            realTime_->setChecked(false);
        }
        return refuseFlow(QString("%1 was baked in another heart (%2) than the one shown (%3, %4)")
                              .arg(refused.fromLecture ? "The lecture's baked flow" : refused.origin,
                                   bakedIn.empty() ? QString("unnamed") : QString::fromStdString(bakedIn),
                                   sourceLabel(source_), QString::fromStdString(heartIdentity_)),
                          !refused.fromLecture);
    }
    if (std::exchange(supplied_->fresh, false)) {
        if (!realTimeFlow()) realTimeBeforeLecture_ = false; // kept as the user left it
        const QSignalBlocker block(realTime_);
        realTime_->setChecked(true);
    }
}

bool MainWindow::playsSuppliedFlow() const { return realTimeFlow() && supplied_ && !supplied_->awaitingHeart; }

void MainWindow::startBlood() {
    if (!heart_) return;
    checkSuppliedFlow();
    const RunnerSettings rs = choices_.runnerSettings(poolMl_);
    saveBeat_->setEnabled(false); // until a beat plays
    if (!realTimeFlow()) {
        if (baker_->busy()) baker_->cancel();
        view_->setBloodSource(std::make_shared<SimulationRunner>(heart_, anatomy_, rs, playPause_->isChecked()));
        return;
    }
    if (playsSuppliedFlow()) {
        if (baker_->busy()) baker_->cancel(); // its end is ignored (connectFlow): this beat plays on
        return playBakedBeat(supplied_->beat, supplied_->origin);
    }
    // The heart beats in real time while its blood is baked (or read from the cache).
    view_->setBloodSource(std::make_shared<BakedFlowPlayer>(nullptr, heart_, rs.cycleSeconds, playPause_->isChecked()));
    if (baker_->busy()) {
        bakeAgain_ = true; // the running bake is for other choices
        baker_->cancel();
        return;
    }
    FlowBaker::Request request;
    request.heart = heart_;
    request.anatomy = anatomy_;
    request.simulation = rs.simulation;
    request.cycleSeconds = rs.cycleSeconds;
    request.bake = options_.bake;
    request.key = flowKey();
    request.cacheDirectory = heart::defaultCacheDirectory();
    baker_->start(std::move(request), sourceLabel(source_));
}

void MainWindow::playBakedBeat(std::shared_ptr<const heart::BakedBeat> beat, const QString& origin) {
    auto player = std::make_shared<BakedFlowPlayer>(std::move(beat), heart_, 0.8, playPause_->isChecked());
    player->setOrigin(origin.toStdString());
    view_->setBloodSource(std::move(player));
    saveBeat_->setEnabled(true);
    statusBar()->showMessage("Real-time flow: the baked beat" + (origin.isEmpty() ? QString() : " of " + origin) +
                                 " plays at the true heart rate (T: live simulation)",
                             6000);
}

void MainWindow::openBakedBeat() {
    const auto refocus = qScopeGuard([this] { returnFocusToView(); });
    const QString path =
        QFileDialog::getOpenFileName(this, "Open a baked beat of this heart", QString(), "Baked beats (*.atriumflow)");
    if (path.isEmpty() || !heart_) return;
    flowFile_ = path.toStdString();
    if (realTimeFlow()) startBlood();
    else realTime_->setChecked(true); // starts it
}

void MainWindow::saveBakedBeat() {
    const auto refocus = qScopeGuard([this] { returnFocusToView(); });
    const auto* player = dynamic_cast<const BakedFlowPlayer*>(view_->bloodSource());
    if (!player || !player->beat()) {
        statusBar()->showMessage("No baked beat is playing: Simulation > Real-time flow (T) bakes one", 5000);
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, "Save the baked beat (students open it with Simulation > "
                                                            "Open a baked beat)",
                                                      "heart.atriumflow", "Baked beats (*.atriumflow)");
    if (path.isEmpty()) return;
    try {
        player->beat()->save(path.toStdString());
        statusBar()->showMessage("Saved " + path, 5000);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, "Save the baked beat", QString::fromStdString(e.what()));
    }
}

void MainWindow::connectFlow() {
    connect(baker_, &FlowBaker::baked, this, [this](const std::shared_ptr<const heart::BakedBeat>& beat, bool) {
        if (!realTimeFlow()) return; // switched back to live meanwhile
        if (playsSuppliedFlow()) return; // a lecture's beat came meanwhile and plays instead
        // A bake for other choices (changed meanwhile) is not this heart's.
        if (bakeAgain_ || beat->key != flowKey()) {
            bakeAgain_ = false;
            return startBlood();
        }
        playBakedBeat(beat);
    });
    const auto stopped = [this](const QString& error) {
        if (bakeAgain_) {
            bakeAgain_ = false;
            return startBlood();
        }
        if (!realTimeFlow()) return;
        // Cancelled because a beat handed in (the lecture's) replaced it: that beat plays on.
        if (playsSuppliedFlow()) return;
        // Back to the live blood: cancelled, or it blew up.
        {
            const QSignalBlocker block(realTime_);
            realTime_->setChecked(false);
        }
        startBlood();
        if (error.isEmpty()) {
            statusBar()->showMessage("Baking cancelled: the blood is simulated live", 6000);
        } else {
            statusBar()->showMessage("Could not bake the beat: " + error);
            if (!options_.headless) QMessageBox::warning(this, "Real-time flow", "Could not bake the beat:\n" + error);
            returnFocusToView();
        }
    };
    connect(baker_, &FlowBaker::cancelled, this, [stopped] { stopped({}); });
    connect(baker_, &FlowBaker::failed, this, stopped);
}

} // namespace atrium::widgets
