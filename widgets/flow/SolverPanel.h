#pragma once
// The panel of simulation parameters a lecturer may change: particle budget, heart
// rate, blood viscosity, speed of sound. Each field has limits that keep the
// simulation stable and affordable; applying restarts the blood with them. (Inflow
// is not a choice: the atrium refills as the heart's volume changes.)

#include "widgets/flow/SimulationRunner.h"

#include <QDialog>

class QDoubleSpinBox;
class QSpinBox;

namespace atrium::widgets {

/// What the panel edits, in the units shown to the user.
struct SimulationChoices {
    int particleBudget = 15000;     ///< particles in the blood pool (sets the spacing)
    double heartRateBpm = 75;       ///< playback rate of the heart's cycle
    double viscosityMilliPaS = 3.5; ///< blood ~3.5 mPa s
    double soundSpeed = 10.0;       ///< m/s (weak compressibility; HeartSimulationSettings::soundSpeed weighs 20)
    bool cuda = false;              ///< GPU backend (only when one is present)

    /// The runner's settings for a heart whose blood pool holds `bloodPoolMl`: the
    /// particle spacing from the budget, the cycle from the rate, CUDA when asked and
    /// present.
    RunnerSettings runnerSettings(double bloodPoolMl) const;

    static constexpr int kMinParticles = 1000, kMaxParticles = 2000000;
    static constexpr double kMinRate = 30, kMaxRate = 200;
    static constexpr double kMinViscosity = 1.0, kMaxViscosity = 20.0;
    static constexpr double kMinSoundSpeed = 5.0, kMaxSoundSpeed = 60.0;
};

class SolverPanel : public QDialog {
    Q_OBJECT
public:
    SolverPanel(const SimulationChoices& current, QWidget* parent = nullptr);
    SimulationChoices choices() const;

private:
    QSpinBox* particles_;
    QDoubleSpinBox *rate_, *viscosity_, *soundSpeed_;
    bool cuda_;
};

} // namespace atrium::widgets
