#include "widgets/lecture/ResourceBar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QToolButton>

namespace atrium::widgets {

namespace {

using narrative::ResourceKind;

const char* kindSign(ResourceKind kind) {
    switch (kind) {
    case ResourceKind::Text: return "Aa";
    case ResourceKind::Image: return "\u25A3";   // square with a square inside: a picture
    case ResourceKind::Video: return "\u25B6";   // play
    case ResourceKind::Audio: return "\u266A";   // note
    case ResourceKind::WebLink: return "\u2197"; // arrow out
    case ResourceKind::File: return "\u2913";    // arrow down to bar: save
    }
    return "?";
}

const char* kindName(ResourceKind kind) {
    switch (kind) {
    case ResourceKind::Text: return "text";
    case ResourceKind::Image: return "picture";
    case ResourceKind::Video: return "video";
    case ResourceKind::Audio: return "sound";
    case ResourceKind::WebLink: return "web page (opens in your browser)";
    case ResourceKind::File: return "document (saved where you say)";
    }
    return "";
}

} // namespace

QIcon ResourceBar::iconFor(ResourceKind kind, narrative::Colour c) {
    QPixmap pm(64, 64);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    QPainterPath tile;
    tile.addRoundedRect(QRectF(3, 3, 58, 58), 12, 12);
    p.fillPath(tile, QColor(c.r, c.g, c.b));
    p.setPen(QPen(QColor(255, 255, 255, 200), 2));
    p.drawPath(tile);
    QFont f = p.font();
    f.setPixelSize(kind == ResourceKind::Text ? 26 : 32);
    f.setBold(true);
    p.setFont(f);
    p.setPen(Qt::white);
    p.drawText(QRect(0, 0, 64, 64), Qt::AlignCenter, QString::fromUtf8(kindSign(kind)));
    return QIcon(pm);
}

ResourceBar::ResourceBar(QWidget* parent) : QWidget(parent) {
    setObjectName("resourceBar");
    setAttribute(Qt::WA_StyledBackground);
    setFocusPolicy(Qt::NoFocus);
    setStyleSheet("#resourceBar { background: rgba(20, 24, 30, 190); border-top: 1px solid rgba(255,255,255,40); }"
                  "#resourceBar QLabel { color: #dde; } #resourceBar QToolButton { color: #eef; border: none; }"
                  "#resourceBar QToolButton:hover { background: rgba(255,255,255,30); border-radius: 6px; }");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->setSpacing(6);
    category_ = new QComboBox(this);
    category_->setObjectName("resourceCategory");
    category_->setToolTip("Show the resources of one category only");
    category_->setFocusPolicy(Qt::NoFocus);
    order_ = new QComboBox(this);
    order_->setObjectName("resourceOrder");
    order_->addItem("Author's order", int(narrative::ResourceOrder::Document));
    order_->addItem("By name", int(narrative::ResourceOrder::Name));
    order_->addItem("By category", int(narrative::ResourceOrder::Category));
    order_->setToolTip("How the resources are ordered");
    order_->setFocusPolicy(Qt::NoFocus);
    category_->setFixedWidth(190);
    order_->setFixedWidth(190);
    auto* column = new QVBoxLayout;
    column->setSpacing(2);
    column->addWidget(category_);
    column->addWidget(order_);
    layout->addLayout(column);
    icons_ = new QHBoxLayout;
    icons_->setSpacing(4);
    layout->addLayout(icons_);
    empty_ = new QLabel("No resources here: fly near a structure of the heart and look at it", this);
    layout->addWidget(empty_);
    layout->addStretch(1);
    connect(category_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT filterChanged(); });
    connect(order_, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT filterChanged(); });
    setCategories({});
}

void ResourceBar::setCategories(const std::vector<narrative::ResourceCategory>& categories) {
    categories_ = categories;
    const QSignalBlocker block(category_);
    category_->clear();
    category_->addItem("All categories", QString());
    for (const auto& c : categories) {
        QPixmap swatch(12, 12);
        swatch.fill(QColor(c.colour.r, c.colour.g, c.colour.b));
        category_->addItem(QIcon(swatch), QString::fromStdString(c.name), QString::fromStdString(c.name));
    }
    category_->setVisible(!categories.empty());
}

narrative::ResourceFilter ResourceBar::filter() const {
    return {category_->currentData().toString().toStdString(), narrative::ResourceOrder(order_->currentData().toInt())};
}

QToolButton* ResourceBar::button(const std::string& id) const {
    for (std::size_t i = 0; i < shown_.size(); ++i)
        if (shown_[i] == id) return buttons_[i];
    return nullptr;
}

void ResourceBar::setResources(const std::vector<const narrative::Resource*>& resources) {
    std::vector<std::string> ids;
    for (const auto* r : resources) ids.push_back(r->id);
    if (ids == shown_) return;
    for (auto* b : buttons_) b->deleteLater();
    buttons_.clear();
    shown_ = ids;
    for (const auto* r : resources) {
        narrative::Colour colour{110, 110, 120};
        for (const auto& c : categories_)
            if (c.name == r->category) colour = c.colour;
        auto* b = new QToolButton(this);
        b->setObjectName(QString::fromStdString("resource:" + r->id));
        b->setIcon(iconFor(r->kind, colour));
        b->setIconSize(QSize(40, 40));
        b->setText(QString::fromStdString(r->name));
        b->setToolButtonStyle(Qt::ToolButtonTextUnderIcon);
        b->setFocusPolicy(Qt::NoFocus);
        b->setMinimumWidth(72);
        QString tip = "<b>" + QString::fromStdString(r->name).toHtmlEscaped() + "</b> - " + kindName(r->kind);
        if (!r->category.empty()) tip += "<br>" + QString::fromStdString(r->category).toHtmlEscaped();
        if (!r->description.empty()) tip += "<br>" + QString::fromStdString(r->description).toHtmlEscaped();
        if (r->reposition) tip += "<br><i>Opening it flies the camera to its view.</i>";
        b->setToolTip(tip);
        const QString id = QString::fromStdString(r->id);
        connect(b, &QToolButton::clicked, this, [this, id] { Q_EMIT openRequested(id); });
        icons_->addWidget(b);
        buttons_.push_back(b);
    }
    empty_->setVisible(resources.empty());
}

} // namespace atrium::widgets
