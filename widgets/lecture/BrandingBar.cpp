#include "widgets/lecture/BrandingBar.h"

#include <QDesktopServices>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QUrl>

namespace atrium::widgets {

BrandingBar::BrandingBar(QWidget* parent) : QWidget(parent) {
    setObjectName("brandingBar");
    setAttribute(Qt::WA_StyledBackground);
    setFocusPolicy(Qt::NoFocus);
    setStyleSheet("#brandingBar { background: rgba(245, 245, 240, 230); border-top: 1px solid #998; }"
                  "#brandingBar QLabel { color: #222; }");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 3, 10, 3);
    logo_ = new QLabel(this);
    text_ = new QLabel(this);
    QFont f = text_->font();
    f.setBold(true);
    text_->setFont(f);
    lock_ = new QLabel(this);
    lock_->setObjectName("lockState");
    signature_ = new QLabel(this);
    signature_->setObjectName("signatureState");
    layout->addWidget(logo_);
    layout->addWidget(text_);
    layout->addStretch(1);
    layout->addWidget(lock_);
    layout->addSpacing(16);
    layout->addWidget(signature_);
}

void BrandingBar::setBranding(const QString& text, const QImage& logo, const QString& link) {
    text_->setText(text);
    logo_->setVisible(!logo.isNull());
    if (!logo.isNull()) logo_->setPixmap(QPixmap::fromImage(logo.scaledToHeight(28, Qt::SmoothTransformation)));
    link_ = link;
    const QString tip = link.isEmpty() ? QString() : "Opens " + link + " in your browser";
    text_->setToolTip(tip);
    logo_->setToolTip(tip);
    setCursor(link.isEmpty() ? Qt::ArrowCursor : Qt::PointingHandCursor);
}

void BrandingBar::setLockState(const QString& text, const QString& tooltip) {
    lock_->setText(text);
    lock_->setToolTip(tooltip);
}

void BrandingBar::setSignature(const QString& text, const QString& tooltip, bool trusted) {
    signature_->setText(text);
    signature_->setToolTip(tooltip);
    signature_->setStyleSheet(trusted ? "color: #1d6b2a;" : "color: #8a4b00;");
}

QString BrandingBar::brandingText() const { return text_->text(); }
QString BrandingBar::lockText() const { return lock_->text(); }
QString BrandingBar::signatureText() const { return signature_->text(); }

void BrandingBar::mousePressEvent(QMouseEvent* e) {
    if (!link_.isEmpty() && e->button() == Qt::LeftButton && e->position().x() < width() / 2)
        QDesktopServices::openUrl(QUrl(link_));
    QWidget::mousePressEvent(e);
}

} // namespace atrium::widgets
