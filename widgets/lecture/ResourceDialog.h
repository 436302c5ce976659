#pragma once
// The resource editor's form (ResourceEditor): every field of a resource, with buttons
// that take the centre from the camera and the target from a click on the heart, and a
// radius slider. It stays open while the author flies, and shows the sphere gizmo.

#include "narrative/Resource.h"

#include <QDialog>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSlider;

namespace atrium::widgets {

class ResourceDialog : public QDialog {
    Q_OBJECT
public:
    explicit ResourceDialog(QWidget* parent);

    /// Fills the form; `editingId` empty for a new resource.
    void setResource(const narrative::Resource& resource, const std::vector<narrative::ResourceCategory>& categories,
                     const std::string& editingId);
    /// The resource as the form says (not validated: the package does that).
    narrative::Resource resource() const;
    const std::string& editingId() const { return editingId_; }
    /// A media file chosen from disk for this resource (empty: none); it is added to the
    /// package as resource().media.
    QString chosenMediaFile() const { return mediaFile_; }

    void setCentre(const narrative::Vec3& c);
    void setTarget(const narrative::Vec3& t);
    void setRadius(double r);

Q_SIGNALS:
    void centreFromCameraRequested();
    void pickTargetRequested();
    /// The placement changed (the gizmo follows).
    void placementChanged();
    /// Apply (`close` false) or OK (`close` true): store the form.
    void applyRequested(bool close);

private:
    void updateContentFields();

    QLineEdit *id_, *name_, *url_, *media_, *author_, *years_;
    QComboBox *kind_, *category_, *copyright_, *autoLaunch_;
    QPlainTextEdit *text_, *description_;
    QDoubleSpinBox *target_[3], *centre_[3], *radius_;
    QSlider* radiusSlider_;
    QCheckBox *ignoreTarget_, *reposition_, *global_;
    QPushButton* chooseMedia_;
    std::string editingId_;
    QString mediaFile_;
};

} // namespace atrium::widgets
