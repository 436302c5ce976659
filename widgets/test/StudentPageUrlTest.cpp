// The lecturer panel's QR code holds the student page's URL, which a phone's browser opens.
#include "widgets/live/LiveLecturePanel.h"

#include <gtest/gtest.h>

using atrium::widgets::studentPageUrl;

TEST(StudentPageUrl, TheSessionUrlBecomesThePagesWithTheCode) {
    EXPECT_EQ(studentPageUrl("ws://192.168.1.20:40123", "K7P2QX").toStdString(), "http://192.168.1.20:40123/?code=K7P2QX");
    EXPECT_EQ(studentPageUrl("wss://10.0.0.5:443", "HEART7").toStdString(), "https://10.0.0.5:443/?code=HEART7");
    EXPECT_EQ(studentPageUrl("ws://[fe80::1]:9000", "ABCD").toStdString(), "http://[fe80::1]:9000/?code=ABCD");
}
