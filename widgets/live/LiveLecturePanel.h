#pragma once
// The live lecture's dock panel. For the lecturer: the join code in large letters, the
// URLs and a QR code of the first (libqrencode), who is connected and who follows or
// explores, and the controls - hold attention, record, hand over the floor and take it
// back. The panel is meant to be projected, so the lecturer secret (which lets anyone
// drive the lecture) stays hidden until asked for: a "Show" toggle, and a copy button
// that puts it on the clipboard without showing it. For a student: where it is connected and whether it follows, explores (F
// returns), is held by the lecturer or presents.

#include "session/Protocol.h"

#include <QImage>
#include <QWidget>

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSlider;

namespace atrium::widgets {

/// `text` as a QR code (error correction M), one module per `scale` pixels with a quiet
/// zone of four modules; a null image when it cannot be encoded.
QImage qrCode(const QString& text, int scale = 4);
/// The student page of a lecture served at `sessionUrl` (ws://HOST:PORT or wss://...)
/// with the join code: http://HOST:PORT/?code=CODE (https:// for wss://), what a browser
/// opens and the QR code holds.
QString studentPageUrl(const QString& sessionUrl, const QString& code);

class LiveLecturePanel : public QWidget {
    Q_OBJECT
public:
    explicit LiveLecturePanel(QWidget* parent = nullptr);

    /// Lecturer: the code, the URLs (the first also as a QR code).
    /// `fingerprint`: a classroom certificate's, for students to compare (empty: plain ws://).
    void showHosting(const QString& code, const QStringList& urls, const QString& secret, const QString& fingerprint = {});
    void showRoster(const std::vector<session::Member>& members);
    /// Student (or replay): one line of status.
    void showStatus(const QString& text);
    /// Replay: the position and length of the recording, seconds.
    void showReplay(double at, double length, bool playing);
    void clear();

    QPushButton* holdButton() const { return hold_; }
    QPushButton* recordButton() const { return record_; }
    QPushButton* floorButton() const { return floor_; }
    QPushButton* takeBackButton() const { return takeBack_; }
    QPushButton* replayPlayButton() const { return replayPlay_; }
    /// The lecturer secret's field (masked until showSecretButton() is checked), the
    /// toggle that shows it, and the button that copies it to the clipboard.
    QLineEdit* secretField() const { return secret_; }
    QPushButton* showSecretButton() const { return showSecret_; }
    QPushButton* copySecretButton() const { return copySecret_; }
    QSlider* replaySlider() const { return replaySlider_; }
    /// The member selected in the roster (for the floor), if any.
    std::optional<int> selectedMember() const;
    const QImage& shownQr() const { return qr_; }
    QString shownCode() const;
    int rosterRows() const;

private:
    QLabel *code_, *urls_, *qrLabel_, *status_;
    QListWidget* roster_;
    QPushButton *hold_, *record_, *floor_, *takeBack_, *replayPlay_, *showSecret_, *copySecret_;
    QLineEdit* secret_;
    QSlider* replaySlider_;
    QWidget *hostBox_, *replayBox_;
    QImage qr_;
};

} // namespace atrium::widgets
