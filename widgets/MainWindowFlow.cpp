// MainWindow's blood: the live simulation, or a baked beat played at the true heart rate
// (docs/baked-flow.md), one click apart (Simulation > Real-time flow, T).

#include "widgets/MainWindow.h"

#include "widgets/BakedFlowPlayer.h"
#include "widgets/FlowBaker.h"
#include "widgets/HeartLoader.h"
#include "widgets/SceneView.h"
#include "widgets/SimulationRunner.h"

#include <QAction>
#include <QFileDialog>
#include <QMessageBox>
#include <QScopeGuard>
#include <QStatusBar>

namespace atrium::widgets {

bool MainWindow::realTimeFlow() const { return realTime_->isChecked(); }

void MainWindow::setRealTimeFlow(bool on) {
    if (realTime_->isChecked() != on) return realTime_->setChecked(on); // comes back here through toggled
    startBlood();
}

std::string MainWindow::flowKey() const {
    std::string heartKey;
    try {
        heartKey = heart::heartCacheFile(source_, heart::PipelineSettings::forBlood()).filename().string();
    } catch (const std::exception&) {
    }
    if (heartKey.empty()) heartKey = sourceLabel(source_).toStdString();
    const RunnerSettings rs = choices_.runnerSettings(poolMl_);
    return heart::flowCacheKey(heartKey, rs.cycleSeconds, rs.simulation, options_.bake);
}

void MainWindow::startBlood() {
    if (!heart_) return;
    const RunnerSettings rs = choices_.runnerSettings(poolMl_);
    saveBeat_->setEnabled(false); // until a beat plays
    if (!realTimeFlow()) {
        if (baker_->busy()) baker_->cancel();
        view_->setBloodSource(std::make_shared<SimulationRunner>(heart_, anatomy_, rs, playPause_->isChecked()));
        return;
    }
    if (flowFile_) {
        try {
            auto beat = std::make_shared<const heart::BakedBeat>(heart::BakedBeat::load(*flowFile_));
            const std::string heartLine = flowKey().substr(0, flowKey().find("\ncycleSeconds"));
            if (beat->key.rfind(heartLine, 0) != 0)
                throw std::runtime_error(flowFile_->string() + ": baked from another heart than the one shown");
            return playBakedBeat(std::move(beat));
        } catch (const std::exception& e) {
            flowFile_.reset();
            const QString message = QString::fromStdString(e.what());
            Q_EMIT loadFailed(message);
            if (!options_.headless) QMessageBox::warning(this, "Real-time flow", message);
            return realTime_->setChecked(false);
        }
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

void MainWindow::playBakedBeat(std::shared_ptr<const heart::BakedBeat> beat) {
    view_->setBloodSource(std::make_shared<BakedFlowPlayer>(std::move(beat), heart_, 0.8, playPause_->isChecked()));
    saveBeat_->setEnabled(true);
    statusBar()->showMessage("Real-time flow: a baked beat plays at the true heart rate (T: live simulation)", 6000);
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
