#include "widgets/narrative/NarrativeDialogs.h"

#include <QCheckBox>
#include <QColorDialog>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTextEdit>
#include <QToolButton>
#include <QVBoxLayout>

namespace atrium::widgets {

using narrative::BloodColouring;
using narrative::FluidDrawing;

namespace {

QDoubleSpinBox* spin(double lo, double hi, double value, double step, const QString& suffix, int decimals = 2) {
    auto* s = new QDoubleSpinBox;
    s->setRange(lo, hi);
    s->setDecimals(decimals);
    s->setSingleStep(step);
    s->setSuffix(suffix);
    s->setValue(value);
    return s;
}

QDialogButtonBox* okCancel(QDialog* d) {
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QObject::connect(buttons, &QDialogButtonBox::accepted, d, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, d, &QDialog::reject);
    return buttons;
}

/// A "set" box in front of `field`; the field is enabled only while it is ticked.
QCheckBox* optionalRow(QFormLayout* form, const QString& label, QWidget* field, bool set) {
    auto* box = new QCheckBox(label);
    box->setChecked(set);
    field->setEnabled(set);
    QObject::connect(box, &QCheckBox::toggled, field, &QWidget::setEnabled);
    form->addRow(box, field);
    return box;
}

} // namespace

NodeDialog::NodeDialog(const narrative::Node& node, QWidget* parent) : QDialog(parent), node_(node) {
    setWindowTitle("Node");
    setObjectName("nodeDialog");
    auto* layout = new QVBoxLayout(this);
    auto* timing = new QFormLayout;
    title_ = new QLineEdit(QString::fromStdString(node.title));
    timing->addRow("Title", title_);
    dwell_ = spin(0, 3600, node.dwell, 0.5, " s");
    timing->addRow("Dwell", dwell_);
    waitForKey_ = new QCheckBox("Stay until a key is pressed (instead of the dwell time)");
    waitForKey_->setChecked(node.waitForKey);
    timing->addRow("", waitForKey_);
    fadeIn_ = spin(0, 60, node.fadeIn, 0.1, " s");
    fadeOut_ = spin(0, 60, node.fadeOut, 0.1, " s");
    timing->addRow("Overlays fade in", fadeIn_);
    timing->addRow("Overlays fade out", fadeOut_);
    layout->addLayout(timing);

    auto* group = new QGroupBox("View at this node (unticked: keep what is on screen)");
    auto* view = new QFormLayout(group);
    const narrative::ViewState& v = node.view;
    running_ = new QCheckBox("beating");
    running_->setChecked(v.heartRunning.value_or(true));
    setRunning_ = optionalRow(view, "Heart", running_, v.heartRunning.has_value());
    phase_ = spin(0, 0.999, v.heartPhase.value_or(0.35), 0.01, "", 3);
    phase_->setToolTip("Fraction of the cardiac cycle at which the heart is held");
    setPhase_ = optionalRow(view, "Hold at phase", phase_, v.heartPhase.has_value());
    rate_ = spin(21, 239, v.heartRateBpm.value_or(75), 1, " bpm", 0);
    setRate_ = optionalRow(view, "Heart rate", rate_, v.heartRateBpm.has_value());
    colouring_ = new QComboBox;
    colouring_->addItems({"Blood red", "Speed", "Density error", "Pressure"});
    colouring_->setCurrentIndex(int(v.colouring.value_or(BloodColouring::Blood)));
    setColouring_ = optionalRow(view, "Colour the blood by", colouring_, v.colouring.has_value());
    fluid_ = new QComboBox;
    fluid_->addItems({"Spheres", "Surface"});
    fluid_->setCurrentIndex(int(v.fluid.value_or(FluidDrawing::Spheres)));
    setFluid_ = optionalRow(view, "Blood drawn as", fluid_, v.fluid.has_value());
    opacity_ = spin(0, 1, v.wallOpacity.value_or(0.35), 0.05, "");
    setOpacity_ = optionalRow(view, "Wall opacity", opacity_, v.wallOpacity.has_value());
    auto* clipRow = new QWidget;
    auto* clipLayout = new QHBoxLayout(clipRow);
    clipLayout->setContentsMargins(0, 0, 0, 0);
    clip_ = new QCheckBox("cut open, at");
    clip_->setChecked(v.clipping ? v.clipping->enabled : true);
    clipOffset_ = spin(-1, 1, v.clipping ? v.clipping->offset : 0.0, 0.05, " radius");
    clipLayout->addWidget(clip_);
    clipLayout->addWidget(clipOffset_);
    setClip_ = optionalRow(view, "Clipping", clipRow, v.clipping.has_value());
    wireframe_ = new QCheckBox("on");
    wireframe_->setChecked(v.wireframe.value_or(false));
    setWireframe_ = optionalRow(view, "Wireframe", wireframe_, v.wireframe.has_value());
    blood_ = new QCheckBox("shown");
    blood_->setChecked(v.bloodVisible.value_or(true));
    setBlood_ = optionalRow(view, "Blood", blood_, v.bloodVisible.has_value());
    layout->addWidget(group);
    layout->addWidget(okCancel(this));
}

narrative::Node NodeDialog::node() const {
    narrative::Node n = node_;
    n.title = title_->text().toStdString();
    n.dwell = dwell_->value();
    n.waitForKey = waitForKey_->isChecked();
    n.fadeIn = fadeIn_->value();
    n.fadeOut = fadeOut_->value();
    narrative::ViewState& v = n.view;
    v = {};
    if (setRunning_->isChecked()) v.heartRunning = running_->isChecked();
    if (setPhase_->isChecked()) v.heartPhase = phase_->value();
    if (setRate_->isChecked()) v.heartRateBpm = rate_->value();
    if (setColouring_->isChecked()) v.colouring = BloodColouring(colouring_->currentIndex());
    if (setFluid_->isChecked()) v.fluid = FluidDrawing(fluid_->currentIndex());
    if (setOpacity_->isChecked()) v.wallOpacity = opacity_->value();
    if (setClip_->isChecked()) v.clipping = narrative::Clipping{clip_->isChecked(), clipOffset_->value()};
    if (setWireframe_->isChecked()) v.wireframe = wireframe_->isChecked();
    if (setBlood_->isChecked()) v.bloodVisible = blood_->isChecked();
    return n;
}

TransitionDialog::TransitionDialog(const narrative::Transition& t, QWidget* parent) : QDialog(parent) {
    setWindowTitle("Transition");
    setObjectName("transitionDialog");
    auto* form = new QFormLayout(this);
    duration_ = spin(0.1, 600, t.duration, 0.5, " s");
    form->addRow("Flight duration", duration_);
    phase_ = spin(0, 0.999, t.heartPhase.value_or(0.35), 0.01, "", 3);
    phase_->setToolTip("The heart beats on during the flight until it reaches this phase, and is held there");
    setPhase_ = optionalRow(form, "Bring the heart to phase", phase_, t.heartPhase.has_value());
    form->addRow(okCancel(this));
}

narrative::Transition TransitionDialog::transition() const {
    narrative::Transition t;
    t.duration = duration_->value();
    if (setPhase_->isChecked()) t.heartPhase = phase_->value();
    return t;
}

RichTextDialog::RichTextDialog(const QString& title, const QString& html, QWidget* parent) : QDialog(parent) {
    setWindowTitle(title);
    setObjectName("richTextDialog");
    auto* layout = new QVBoxLayout(this);
    auto* tools = new QHBoxLayout;
    edit_ = new QTextEdit;
    edit_->setAcceptRichText(true);
    edit_->setHtml(html);
    auto tool = [&](const QString& text, const QString& tip, auto apply) {
        auto* b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        connect(b, &QToolButton::clicked, this, apply);
        tools->addWidget(b);
    };
    tool("B", "Bold", [this] {
        QTextCharFormat f;
        f.setFontWeight(edit_->fontWeight() > QFont::Normal ? QFont::Normal : QFont::Bold);
        edit_->mergeCurrentCharFormat(f);
    });
    tool("I", "Italic", [this] {
        QTextCharFormat f;
        f.setFontItalic(!edit_->fontItalic());
        edit_->mergeCurrentCharFormat(f);
    });
    tool("U", "Underline", [this] {
        QTextCharFormat f;
        f.setFontUnderline(!edit_->fontUnderline());
        edit_->mergeCurrentCharFormat(f);
    });
    tool("A+", "Larger", [this] {
        QTextCharFormat f;
        f.setProperty(QTextFormat::FontSizeAdjustment, 1);
        edit_->mergeCurrentCharFormat(f);
    });
    tool("Colour", "Text colour", [this] {
        const QColor c = QColorDialog::getColor(edit_->textColor(), this, "Text colour");
        if (!c.isValid()) return;
        QTextCharFormat f;
        f.setForeground(c);
        edit_->mergeCurrentCharFormat(f);
    });
    tools->addStretch();
    layout->addLayout(tools);
    layout->addWidget(edit_);
    layout->addWidget(okCancel(this));
    resize(520, 320);
}

QString RichTextDialog::html() const {
    // Only the body's contents: the document keeps a fragment, not a whole page.
    const QString page = edit_->toHtml();
    const auto m = QRegularExpression("<body[^>]*>(.*)</body>", QRegularExpression::DotMatchesEverythingOption).match(page);
    return (m.hasMatch() ? m.captured(1) : page).trimmed();
}

} // namespace atrium::widgets
