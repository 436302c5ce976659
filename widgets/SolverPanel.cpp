#include "widgets/SolverPanel.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
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
    particles_ = new QSpinBox(this);
    particles_->setObjectName("particleBudget");
    particles_->setRange(SimulationChoices::kMinParticles, SimulationChoices::kMaxParticles);
    particles_->setSingleStep(5000);
    particles_->setValue(c.particleBudget);
    particles_->setToolTip("Particles filling the blood pool; more is finer and slower");
    form->addRow("Particle budget", particles_);
    rate_ = spin(this, 30, 200, c.heartRateBpm, 0, " bpm", "Heart rate: how fast the heart's cycle is played");
    form->addRow("Heart rate", rate_);
    viscosity_ = spin(this, 1.0, 20.0, c.viscosityMilliPaS, 2, " mPa s", "Dynamic viscosity of blood (about 3.5 mPa s)");
    form->addRow("Viscosity", viscosity_);
    soundSpeed_ = spin(this, 5.0, 60.0, c.soundSpeed, 1, " m/s",
                       "Numerical speed of sound: about 10x the fastest flow; higher is stiffer and slower");
    form->addRow("Speed of sound", soundSpeed_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText("Apply and restart");
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
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
