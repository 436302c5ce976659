#include "widgets/flow/SolverPanel.h"

#include "sim/sph/Solver.h" // cudaBackendAvailable(), Aabb

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

namespace atrium::widgets {
namespace {

QDoubleSpinBox* spin(QWidget* parent, double lo, double hi, double value, int decimals, const QString& suffix,
                     const QString& tip) {
    auto* s = new QDoubleSpinBox(parent);
    s->setRange(lo, hi);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setSuffix(suffix);
    s->setToolTip(tip);
    return s;
}

} // namespace

SolverPanel::SolverPanel(const SimulationChoices& c, QWidget* parent) : QDialog(parent), cuda_(c.cuda) {
    setWindowTitle("Simulation parameters");
    auto* form = new QFormLayout(this);
    // Each field with its unit, and its valid range beside it.
    const auto addRow = [&](const QString& name, QWidget* field, const QString& range) {
        auto* row = new QHBoxLayout;
        row->addWidget(field, 1);
        auto* hint = new QLabel(range, this);
        hint->setEnabled(false); // greyed: a hint, not a field
        row->addWidget(hint);
        form->addRow(name, row);
    };
    using C = SimulationChoices;
    particles_ = new QSpinBox(this);
    particles_->setObjectName("particleBudget");
    particles_->setRange(C::kMinParticles, C::kMaxParticles);
    particles_->setSingleStep(5000);
    particles_->setGroupSeparatorShown(true);
    particles_->setValue(c.particleBudget);
    particles_->setToolTip("Particles filling the blood pool; more is finer and slower");
    addRow("Particle budget", particles_, QString("%L1 - %L2").arg(C::kMinParticles).arg(C::kMaxParticles));
    rate_ = spin(this, C::kMinRate, C::kMaxRate, c.heartRateBpm, 0, " bpm", "Heart rate: how fast the heart's cycle is played");
    rate_->setObjectName("heartRate");
    addRow("Heart rate", rate_, QString("%1 - %2 bpm").arg(C::kMinRate).arg(C::kMaxRate));
    viscosity_ = spin(this, C::kMinViscosity, C::kMaxViscosity, c.viscosityMilliPaS, 2, " mPa s",
                      "Dynamic viscosity of blood (about 3.5 mPa s)");
    addRow("Viscosity", viscosity_, QString("%1 - %2 mPa s").arg(C::kMinViscosity).arg(C::kMaxViscosity));
    soundSpeed_ = spin(this, C::kMinSoundSpeed, C::kMaxSoundSpeed, c.soundSpeed, 1, " m/s",
                       "Numerical speed of sound: about 10x the fastest flow; higher is stiffer and slower");
    addRow("Speed of sound", soundSpeed_, QString("%1 - %2 m/s").arg(C::kMinSoundSpeed).arg(C::kMaxSoundSpeed));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText("Apply and restart");
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

RunnerSettings SimulationChoices::runnerSettings(double bloodPoolMl) const {
    RunnerSettings rs;
    rs.cycleSeconds = 60.0 / heartRateBpm;
    rs.simulation = heart::HeartSimulationSettings::forParticleBudget(bloodPoolMl, std::size_t(particleBudget));
    rs.simulation.viscosity = viscosityMilliPaS * 1e-3;
    rs.simulation.soundSpeed = soundSpeed;
    rs.simulation.backend = cuda && sph::cudaBackendAvailable() ? sph::BackendKind::Cuda : sph::BackendKind::Cpu;
    return rs;
}

SimulationChoices SolverPanel::choices() const {
    SimulationChoices c;
    c.particleBudget = particles_->value();
    c.heartRateBpm = rate_->value();
    c.viscosityMilliPaS = viscosity_->value();
    c.soundSpeed = soundSpeed_->value();
    c.cuda = cuda_;
    return c;
}

} // namespace atrium::widgets
