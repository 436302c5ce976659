#pragma once
// The embedded resource bar along the bottom of the 3D view (Poyart 2016 5.5): the
// icons of the resources that are active where the camera is (and the global ones),
// in their category's colour. It never takes the keyboard or pops anything up by
// itself, so navigation goes on; a click opens the resource in place. The bar filters
// by category and sorts by the author's order, name or category.

#include "narrative/ResourceActivation.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QToolButton;

namespace atrium::widgets {

class ResourceBar : public QWidget {
    Q_OBJECT
public:
    explicit ResourceBar(QWidget* parent);

    /// The lecture's categories (the filter's choices and the icons' colours).
    void setCategories(const std::vector<narrative::ResourceCategory>& categories);
    /// What the filter and sort choices say.
    narrative::ResourceFilter filter() const;
    /// Shows these resources, in this order (rebuilds only when they changed).
    void setResources(const std::vector<const narrative::Resource*>& resources);
    /// The ids shown, in order (tests).
    std::vector<std::string> shownIds() const { return shown_; }
    /// The button of a shown resource (tests), or null.
    QToolButton* button(const std::string& id) const;

    /// An icon for a resource: a rounded tile in its category's colour with its kind's sign.
    static QIcon iconFor(narrative::ResourceKind kind, narrative::Colour colour);

Q_SIGNALS:
    void filterChanged();
    /// The user asked to open resource `id`.
    void openRequested(const QString& id);

private:
    QComboBox *category_, *order_;
    QHBoxLayout* icons_;
    QLabel* empty_;
    std::vector<narrative::ResourceCategory> categories_;
    std::vector<std::string> shown_;
    std::vector<QToolButton*> buttons_;
};

} // namespace atrium::widgets
