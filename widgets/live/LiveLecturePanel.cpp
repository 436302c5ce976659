#include "widgets/live/LiveLecturePanel.h"

#include "session/ClientText.h"

#include <qrencode.h>

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QVBoxLayout>

namespace atrium::widgets {

QImage qrCode(const QString& text, int scale) {
    const QByteArray bytes = text.toUtf8();
    QRcode* code = QRcode_encodeString(bytes.constData(), 0, QR_ECLEVEL_M, QR_MODE_8, 1);
    if (!code) return {};
    const int quiet = 4, side = (code->width + 2 * quiet) * scale;
    QImage image(side, side, QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    for (int y = 0; y < code->width; ++y)
        for (int x = 0; x < code->width; ++x)
            if (code->data[y * code->width + x] & 1)
                p.fillRect((x + quiet) * scale, (y + quiet) * scale, scale, scale, Qt::black);
    p.end();
    QRcode_free(code);
    return image;
}

LiveLecturePanel::LiveLecturePanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    status_ = new QLabel(this);
    status_->setWordWrap(true);
    layout->addWidget(status_);

    hostBox_ = new QWidget(this);
    auto* host = new QVBoxLayout(hostBox_);
    host->setContentsMargins(0, 0, 0, 0);
    code_ = new QLabel(hostBox_);
    QFont big = code_->font();
    big.setPointSize(big.pointSize() * 2 + 4);
    big.setBold(true);
    big.setLetterSpacing(QFont::AbsoluteSpacing, 4);
    code_->setFont(big);
    code_->setAlignment(Qt::AlignCenter);
    code_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    code_->setToolTip("The join code: students give it with the URL (Live > Join lecture)");
    urls_ = new QLabel(hostBox_);
    urls_->setWordWrap(true);
    urls_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The secret: masked, never in a label that a projector shows.
    secret_ = new QLineEdit(hostBox_);
    secret_->setObjectName("lecturerSecret");
    secret_->setReadOnly(true);
    secret_->setEchoMode(QLineEdit::Password);
    secret_->setToolTip("The lecturer secret: with it, another machine can drive this lecture (atrium --join URL --code "
                        "CODE --secret SECRET). Keep it off the projector.");
    showSecret_ = new QPushButton("Show", hostBox_);
    showSecret_->setObjectName("showLecturerSecret");
    showSecret_->setCheckable(true);
    showSecret_->setToolTip("Show the lecturer secret in clear (hide the projector first)");
    connect(showSecret_, &QPushButton::toggled, this, [this](bool shown) {
        secret_->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
        showSecret_->setText(shown ? "Hide" : "Show");
    });
    copySecret_ = new QPushButton("Copy", hostBox_);
    copySecret_->setObjectName("copyLecturerSecret");
    copySecret_->setToolTip("Copy the lecturer secret to the clipboard without showing it");
    connect(copySecret_, &QPushButton::clicked, this, [this] {
        QGuiApplication::clipboard()->setText(secret_->text());
        status_->setText("The lecturer secret is on the clipboard.");
    });
    qrLabel_ = new QLabel(hostBox_);
    qrLabel_->setAlignment(Qt::AlignCenter);
    qrLabel_->setToolTip("The student page with the join code: phones, tablets and laptops join in a browser");
    roster_ = new QListWidget(hostBox_);
    roster_->setToolTip("Who is connected: following the lecture, or exploring on their own");
    hold_ = new QPushButton("Hold attention", hostBox_);
    hold_->setCheckable(true);
    hold_->setToolTip("Students follow your view and cannot leave until you release them");
    record_ = new QPushButton("Record", hostBox_);
    record_->setCheckable(true);
    record_->setToolTip("Save what the students receive to a file, to replay later (Live > Replay recording)");
    floor_ = new QPushButton("Give the floor", hostBox_);
    floor_->setToolTip("The student selected above presents: their view drives everyone's until you take it back");
    takeBack_ = new QPushButton("Take back", hostBox_);
    takeBack_->setToolTip("Take the floor back from the presenting student");
    host->addWidget(code_);
    host->addWidget(urls_);
    auto* secretRow = new QHBoxLayout;
    auto* secretLabel = new QLabel("Lecturer secret:", hostBox_);
    secretLabel->setBuddy(secret_);
    secretRow->addWidget(secretLabel);
    secretRow->addWidget(secret_, 1);
    secretRow->addWidget(showSecret_);
    secretRow->addWidget(copySecret_);
    host->addLayout(secretRow);
    host->addWidget(qrLabel_);
    host->addWidget(roster_, 1);
    auto* row = new QHBoxLayout;
    row->addWidget(hold_);
    row->addWidget(record_);
    host->addLayout(row);
    auto* floorRow = new QHBoxLayout;
    floorRow->addWidget(floor_);
    floorRow->addWidget(takeBack_);
    host->addLayout(floorRow);
    layout->addWidget(hostBox_, 1);

    replayBox_ = new QWidget(this);
    auto* replay = new QHBoxLayout(replayBox_);
    replay->setContentsMargins(0, 0, 0, 0);
    replayPlay_ = new QPushButton("Pause", replayBox_);
    replaySlider_ = new QSlider(Qt::Horizontal, replayBox_);
    replaySlider_->setRange(0, 1000);
    replaySlider_->setToolTip("Seek in the recording");
    replay->addWidget(replayPlay_);
    replay->addWidget(replaySlider_, 1);
    layout->addWidget(replayBox_);
    layout->addStretch();
    clear();
}

QString studentPageUrl(const QString& sessionUrl, const QString& code) {
    QString page = sessionUrl;
    if (page.startsWith("wss://")) page.replace(0, 3, "https");
    else if (page.startsWith("ws://")) page.replace(0, 2, "http");
    return page + "/?code=" + code;
}

void LiveLecturePanel::clear() {
    hostBox_->hide();
    replayBox_->hide();
    status_->setText("No live lecture. Live > Start lecture serves the open lecture; Live > Join lecture follows one.");
    roster_->clear();
    code_->clear();
    secret_->clear();
    showSecret_->setChecked(false);
    qr_ = {};
}

void LiveLecturePanel::showHosting(const QString& code, const QStringList& urls, const QString& secret,
                                   const QString& fingerprint) {
    hostBox_->show();
    replayBox_->hide();
    code_->setText(code);
    QString text = "<b>In a browser</b><br>";
    if (!urls.isEmpty()) text += studentPageUrl(urls.front(), code).toHtmlEscaped() + "<br>";
    text += "<b>In Atrium (Live > Join lecture)</b><br>";
    for (const QString& u : urls) text += u.toHtmlEscaped() + "<br>";
    if (!fingerprint.isEmpty())
        text += "<small>Encrypted. Certificate fingerprint (SHA-256): " + fingerprint.toHtmlEscaped() + "</small><br>";
    urls_->setText(text);
    showSecret_->setChecked(false); // a new lecture's secret starts hidden
    secret_->setText(secret);
    qr_ = urls.isEmpty() ? QImage() : qrCode(studentPageUrl(urls.front(), code), 3);
    qrLabel_->setPixmap(QPixmap::fromImage(qr_));
    status_->setText("Lecturing: students follow your view.");
}

void LiveLecturePanel::showRoster(const std::vector<session::Member>& members) {
    const auto selected = selectedMember();
    roster_->clear();
    int following = 0;
    for (const session::Member& m : members) {
        following += m.following;
        QString line = QString::fromStdString(session::escapeClientText(m.name, session::kMaxNameBytes));
        if (m.role == session::Role::Presenter) line += "  - presenting";
        else if (m.role == session::Role::Lecturer) line += "  - lecturer";
        else line += m.following ? "  - following" : "  - exploring";
        auto* item = new QListWidgetItem(line, roster_);
        item->setData(Qt::UserRole, m.id);
        if (selected == m.id) roster_->setCurrentItem(item);
    }
    status_->setText(QString("Lecturing: %1 connected, %2 following.").arg(members.size()).arg(following));
}

void LiveLecturePanel::showStatus(const QString& text) { status_->setText(text); }

void LiveLecturePanel::showReplay(double at, double length, bool playing) {
    replayBox_->show();
    hostBox_->hide();
    const QSignalBlocker block(replaySlider_);
    replaySlider_->setValue(length > 0 ? int(std::lround(1000.0 * at / length)) : 0);
    replayPlay_->setText(playing ? "Pause" : "Play");
}

std::optional<int> LiveLecturePanel::selectedMember() const {
    if (const QListWidgetItem* item = roster_->currentItem()) return item->data(Qt::UserRole).toInt();
    return std::nullopt;
}

QString LiveLecturePanel::shownCode() const { return code_->text(); }
int LiveLecturePanel::rosterRows() const { return roster_->count(); }

} // namespace atrium::widgets
