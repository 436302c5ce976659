#include "widgets/lecture/ResourceDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSlider>

#include <cmath>

namespace atrium::widgets {

using namespace narrative;

namespace {

QHBoxLayout* pointRow(QDoubleSpinBox* (&boxes)[3], QWidget* parent) {
    auto* row = new QHBoxLayout;
    for (auto*& b : boxes) {
        b = new QDoubleSpinBox(parent);
        b->setRange(-1e5, 1e5);
        b->setDecimals(1);
        b->setSuffix(" mm");
        row->addWidget(b);
    }
    return row;
}

Vec3 pointOf(QDoubleSpinBox* const (&boxes)[3]) { return {boxes[0]->value(), boxes[1]->value(), boxes[2]->value()}; }

void setPoint(QDoubleSpinBox* (&boxes)[3], const Vec3& p) {
    boxes[0]->setValue(p.x);
    boxes[1]->setValue(p.y);
    boxes[2]->setValue(p.z);
}

} // namespace

ResourceDialog::ResourceDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle("Embedded resource");
    setModal(false);
    auto* form = new QFormLayout(this);
    id_ = new QLineEdit(this);
    id_->setToolTip("Unique within the lecture: letters, digits, '.', '_' and '-'");
    name_ = new QLineEdit(this);
    kind_ = new QComboBox(this);
    for (auto k : {ResourceKind::Text, ResourceKind::Image, ResourceKind::Video, ResourceKind::Audio, ResourceKind::WebLink,
                   ResourceKind::File})
        kind_->addItem(QString::fromUtf8(toString(k).data(), int(toString(k).size())), int(k));
    category_ = new QComboBox(this);
    text_ = new QPlainTextEdit(this);
    text_->setMaximumHeight(90);
    url_ = new QLineEdit(this);
    url_->setPlaceholderText("https://...");
    media_ = new QLineEdit(this);
    media_->setReadOnly(true);
    chooseMedia_ = new QPushButton("Choose file...", this);
    auto* mediaRow = new QHBoxLayout;
    mediaRow->addWidget(media_, 1);
    mediaRow->addWidget(chooseMedia_);
    description_ = new QPlainTextEdit(this);
    description_->setMaximumHeight(60);
    author_ = new QLineEdit(this);
    years_ = new QLineEdit(this);
    years_->setPlaceholderText("e.g. 1543 or 1543-1555");
    copyright_ = new QComboBox(this);
    for (auto c : {CopyrightStatus::Unknown, CopyrightStatus::Copyrighted, CopyrightStatus::FairUse,
                   CopyrightStatus::CreativeCommons, CopyrightStatus::PublicDomain, CopyrightStatus::HeldByAuthor})
        copyright_->addItem(QString::fromUtf8(toString(c).data(), int(toString(c).size())), int(c));

    auto* targetRow = pointRow(target_, this);
    auto* pick = new QPushButton("Pick on the heart", this);
    pick->setToolTip("Then click on the heart wall in the view: the ray from the camera sets the target");
    targetRow->addWidget(pick);
    auto* centreRow = pointRow(centre_, this);
    auto* fromCamera = new QPushButton("From camera", this);
    fromCamera->setToolTip("The centre of the sphere where the camera stands now");
    centreRow->addWidget(fromCamera);
    radius_ = new QDoubleSpinBox(this);
    radius_->setRange(0.5, 2000.0);
    radius_->setSuffix(" mm");
    radiusSlider_ = new QSlider(Qt::Horizontal, this);
    radiusSlider_->setRange(5, 2000); // tenths of a log scale step: see below
    radiusSlider_->setToolTip("Grows or shrinks the sphere in the view (so does Ctrl+drag up or down in the view)");
    auto* radiusRow = new QHBoxLayout;
    radiusRow->addWidget(radius_);
    radiusRow->addWidget(radiusSlider_, 1);
    ignoreTarget_ = new QCheckBox("Active whichever way the camera looks (no target condition)", this);
    autoLaunch_ = new QComboBox(this);
    autoLaunch_->addItem("Off: only its icon appears", int(AutoLaunch::Off));
    autoLaunch_->addItem("On: it opens when it becomes active", int(AutoLaunch::On));
    autoLaunch_->addItem("Texts only", int(AutoLaunch::TextOnly));
    reposition_ = new QCheckBox("Opening it flies the camera to its view", this);
    global_ = new QCheckBox("Global: always listed", this);

    form->addRow("Id", id_);
    form->addRow("Name", name_);
    form->addRow("Kind", kind_);
    form->addRow("Category", category_);
    form->addRow("Text", text_);
    form->addRow("Address", url_);
    form->addRow("Media", mediaRow);
    form->addRow("Description", description_);
    form->addRow("Author", author_);
    form->addRow("Years", years_);
    form->addRow("Copyright", copyright_);
    form->addRow("Target t", targetRow);
    form->addRow("Centre c", centreRow);
    form->addRow("Radius r", radiusRow);
    form->addRow(ignoreTarget_);
    form->addRow("Auto-launch", autoLaunch_);
    form->addRow(reposition_);
    form->addRow(global_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);

    connect(kind_, &QComboBox::currentIndexChanged, this, &ResourceDialog::updateContentFields);
    connect(pick, &QPushButton::clicked, this, &ResourceDialog::pickTargetRequested);
    connect(fromCamera, &QPushButton::clicked, this, &ResourceDialog::centreFromCameraRequested);
    connect(chooseMedia_, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, "Media for this resource");
        if (file.isEmpty()) return;
        mediaFile_ = file;
        const QString name = QFileInfo(file).fileName().replace(QRegularExpression("[^A-Za-z0-9_.-]"), "_");
        media_->setText("media/" + (name.startsWith('.') ? "_" + name : name));
    });
    for (auto* b : {target_[0], target_[1], target_[2], centre_[0], centre_[1], centre_[2], radius_})
        connect(b, &QDoubleSpinBox::valueChanged, this, &ResourceDialog::placementChanged);
    // The slider is logarithmic: 0.5 mm to 2 m over its range.
    connect(radiusSlider_, &QSlider::valueChanged, this, [this](int v) {
        const QSignalBlocker block(radiusSlider_);
        radius_->setValue(std::exp(std::log(0.5) + (std::log(2000.0) - std::log(0.5)) * (v - 5) / 1995.0));
    });
    connect(radius_, &QDoubleSpinBox::valueChanged, this, [this](double r) {
        const QSignalBlocker block(radiusSlider_);
        radiusSlider_->setValue(int(5 + 1995.0 * (std::log(r) - std::log(0.5)) / (std::log(2000.0) - std::log(0.5))));
    });
    connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this, [this] { Q_EMIT applyRequested(false); });
    connect(buttons, &QDialogButtonBox::accepted, this, [this] { Q_EMIT applyRequested(true); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    updateContentFields();
}

void ResourceDialog::setResource(const Resource& r, const std::vector<ResourceCategory>& categories, const std::string& editingId) {
    editingId_ = editingId;
    mediaFile_.clear();
    setWindowTitle(editingId.empty() ? "New embedded resource" : "Embedded resource: " + QString::fromStdString(r.name));
    id_->setText(QString::fromStdString(r.id));
    name_->setText(QString::fromStdString(r.name));
    kind_->setCurrentIndex(kind_->findData(int(r.kind)));
    category_->clear();
    category_->addItem("(none)", QString());
    for (const auto& c : categories) category_->addItem(QString::fromStdString(c.name), QString::fromStdString(c.name));
    category_->setCurrentIndex(std::max(0, category_->findData(QString::fromStdString(r.category))));
    text_->setPlainText(QString::fromStdString(r.text));
    url_->setText(QString::fromStdString(r.url));
    media_->setText(QString::fromStdString(r.media));
    description_->setPlainText(QString::fromStdString(r.description));
    author_->setText(QString::fromStdString(r.author));
    QString years;
    if (r.yearFrom || r.yearTo) {
        const int a = r.yearFrom.value_or(*r.yearTo), b = r.yearTo.value_or(*r.yearFrom);
        years = a == b ? QString::number(a) : QString("%1-%2").arg(a).arg(b);
    }
    years_->setText(years);
    copyright_->setCurrentIndex(copyright_->findData(int(r.copyright)));
    setPoint(target_, r.target);
    setPoint(centre_, r.centre);
    radius_->setValue(r.radius);
    ignoreTarget_->setChecked(r.ignoreTarget);
    autoLaunch_->setCurrentIndex(autoLaunch_->findData(int(r.autoLaunch)));
    reposition_->setChecked(r.reposition);
    global_->setChecked(r.global);
    updateContentFields();
}

Resource ResourceDialog::resource() const {
    Resource r;
    r.id = id_->text().trimmed().toStdString();
    r.name = name_->text().trimmed().toStdString();
    r.kind = ResourceKind(kind_->currentData().toInt());
    r.category = category_->currentData().toString().toStdString();
    if (r.kind == ResourceKind::Text) r.text = text_->toPlainText().toStdString();
    if (r.kind == ResourceKind::WebLink) r.url = url_->text().trimmed().toStdString();
    if (r.kind != ResourceKind::Text && r.kind != ResourceKind::WebLink) r.media = media_->text().toStdString();
    r.description = description_->toPlainText().toStdString();
    r.author = author_->text().toStdString();
    const auto m = QRegularExpression("^\\s*(-?\\d+)\\s*(?:-\\s*(-?\\d+))?\\s*$").match(years_->text());
    if (m.hasMatch()) {
        r.yearFrom = m.captured(1).toInt();
        r.yearTo = m.captured(2).isEmpty() ? *r.yearFrom : m.captured(2).toInt();
    }
    r.copyright = CopyrightStatus(copyright_->currentData().toInt());
    r.target = pointOf(target_);
    r.centre = pointOf(centre_);
    r.radius = radius_->value();
    r.ignoreTarget = ignoreTarget_->isChecked();
    r.autoLaunch = AutoLaunch(autoLaunch_->currentData().toInt());
    r.reposition = reposition_->isChecked();
    r.global = global_->isChecked();
    return r;
}

void ResourceDialog::setCentre(const Vec3& c) { setPoint(centre_, c); }
void ResourceDialog::setTarget(const Vec3& t) { setPoint(target_, t); }
void ResourceDialog::setRadius(double r) { radius_->setValue(r); }

void ResourceDialog::updateContentFields() {
    const auto k = ResourceKind(kind_->currentData().toInt());
    text_->setEnabled(k == ResourceKind::Text);
    url_->setEnabled(k == ResourceKind::WebLink);
    media_->setEnabled(k != ResourceKind::Text && k != ResourceKind::WebLink);
    chooseMedia_->setEnabled(media_->isEnabled());
}

} // namespace atrium::widgets
