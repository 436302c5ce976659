// The live lecture panel is projected: its join code is meant to be read by the room,
// the lecturer secret (which lets anyone drive the lecture) is not. It stays masked
// until the lecturer asks for it ("Show"), and "Copy" puts it on the clipboard unseen.

#include "tests/ui/UiTestSupport.h"
#include "widgets/live/LiveLecturePanel.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>

#include <gtest/gtest.h>

using namespace atrium;
using atrium::test::waitFor;

namespace {

/// Every text the panel shows on screen: its visible labels and fields as displayed.
QString shownText(const QWidget& panel) {
    QStringList texts;
    for (const QLabel* l : panel.findChildren<QLabel*>())
        if (l->isVisible()) texts << l->text();
    for (const QLineEdit* e : panel.findChildren<QLineEdit*>())
        if (e->isVisible()) texts << e->displayText();
    return texts.join('\n');
}

} // namespace

TEST(LiveLecturePanel, TheLecturerSecretIsHiddenUntilAskedFor) {
    widgets::LiveLecturePanel panel;
    panel.resize(420, 760);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    const QString secret = "Lecturer-Secret-7f3a9c21e4b8";
    panel.showHosting("K7Q2MX", {"ws://192.0.2.10:8765"}, secret);

    // The code is there for the room; the secret is nowhere in clear.
    EXPECT_TRUE(shownText(panel).contains("K7Q2MX"));
    EXPECT_FALSE(shownText(panel).contains(secret)) << shownText(panel).toStdString();
    auto* show = panel.findChild<QPushButton*>("showLecturerSecret");
    auto* copy = panel.findChild<QPushButton*>("copyLecturerSecret");
    ASSERT_NE(show, nullptr) << "no Show button for the secret";
    ASSERT_NE(copy, nullptr) << "no Copy button for the secret";
    EXPECT_TRUE(show->isVisible());
    EXPECT_TRUE(copy->isVisible());

    // Asked for, it shows; asked again, it hides.
    QTest::mouseClick(show, Qt::LeftButton);
    EXPECT_TRUE(shownText(panel).contains(secret));
    QTest::mouseClick(show, Qt::LeftButton);
    EXPECT_FALSE(shownText(panel).contains(secret));

    // Copied without being shown.
    QGuiApplication::clipboard()->setText("something else");
    QTest::mouseClick(copy, Qt::LeftButton);
    EXPECT_TRUE(waitFor([&] { return QGuiApplication::clipboard()->text() == secret; }, 5));
    EXPECT_FALSE(shownText(panel).contains(secret));

    // A new lecture's secret starts hidden, even if the last one was shown.
    QTest::mouseClick(show, Qt::LeftButton);
    panel.showHosting("ZZ99AA", {"ws://192.0.2.10:8766"}, "Another-Secret-0011");
    EXPECT_FALSE(shownText(panel).contains("Another-Secret-0011"));
    panel.clear();
    QTest::mouseClick(copy, Qt::LeftButton); // nothing to copy once the lecture ended
    EXPECT_FALSE(QGuiApplication::clipboard()->text().contains("Another-Secret-0011"));
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumLiveLecturePanelTest"); }
