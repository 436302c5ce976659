#pragma once
// The branding bar along the bottom of the 3D view (Poyart 2016 5.6 item 1): the
// institution's logo and line of text that the lecture's author put there, and - always
// in sight while a lecture is open - its lock state and who signed it (a trusted
// author's name, or an unknown author's key fingerprint, or "unsigned"). A click on the
// logo or text opens the author's link in the browser.

#include <QImage>
#include <QString>
#include <QWidget>

class QLabel;

namespace atrium::widgets {

class BrandingBar : public QWidget {
    Q_OBJECT
public:
    explicit BrandingBar(QWidget* parent);

    /// The author's branding (either may be empty) and where it links to.
    void setBranding(const QString& text, const QImage& logo, const QString& link);
    /// The lock line (e.g. "Locked by its author") and its tooltip.
    void setLockState(const QString& text, const QString& tooltip);
    /// The signature line (e.g. "Signed by Dr A (trusted)") and its tooltip.
    void setSignature(const QString& text, const QString& tooltip, bool trusted);

    QString brandingText() const;
    QString lockText() const;
    QString signatureText() const;

protected:
    void mousePressEvent(QMouseEvent* e) override;

private:
    QLabel *logo_, *text_, *lock_, *signature_;
    QString link_;
};

} // namespace atrium::widgets
