// Lecturer authentication and rate limits.
#include "session/LecturerAuth.h"
#include "session/RateLimit.h"

#include <gtest/gtest.h>

#include <set>

using namespace atrium::session;

TEST(LecturerAuth, TheRightSecretAnswersTheChallenge) {
    const std::string secret = makeLecturerSecret();
    const LecturerKey server = LecturerKey::fromSecret(secret);
    const Challenge c = server.challenge();
    const LecturerKey lecturer = LecturerKey::forChallenge(secret, c);
    const std::string tag = lecturer.answer(c, "0123456789abcdef", 4);
    EXPECT_EQ(tag.size(), 64u);
    EXPECT_TRUE(server.verify(c, "0123456789abcdef", 4, tag));
    // Nothing in the challenge gives the secret away.
    EXPECT_EQ(c.nonce.find(secret), std::string::npos);
    EXPECT_EQ(c.salt.find(secret), std::string::npos);
}

TEST(LecturerAuth, AWrongSecretOrAReplayedAnswerFails) {
    const LecturerKey server = LecturerKey::fromSecret("correct horse battery");
    const Challenge c = server.challenge();
    const std::string good = LecturerKey::forChallenge("correct horse battery", c).answer(c, "0123456789abcdef", 4);
    const std::string bad = LecturerKey::forChallenge("wrong horse", c).answer(c, "0123456789abcdef", 4);
    EXPECT_FALSE(server.verify(c, "0123456789abcdef", 4, bad));
    EXPECT_FALSE(server.verify(c, "0123456789abcdef", 5, good)); // another connection
    EXPECT_FALSE(server.verify(c, "fedcba9876543210", 4, good)); // another session
    EXPECT_FALSE(server.verify(server.challenge(), "0123456789abcdef", 4, good)); // another nonce
    EXPECT_FALSE(server.verify(c, "0123456789abcdef", 4, "zz"));
    EXPECT_FALSE(server.verify(c, "0123456789abcdef", 4, ""));
}

TEST(LecturerAuth, AChallengeWithBadParametersIsRefused) {
    Challenge c{std::string(64, '0'), "nothex", 2, 1 << 20};
    EXPECT_THROW(LecturerKey::forChallenge("s", c), std::runtime_error);
}

TEST(JoinCode, ShortUnambiguousAndRandom) {
    std::set<std::string> seen;
    for (int i = 0; i < 200; ++i) {
        const std::string code = makeJoinCode();
        ASSERT_EQ(code.size(), 6u);
        EXPECT_EQ(code.find_first_of("01OIL"), std::string::npos) << code;
        seen.insert(code);
    }
    EXPECT_GT(seen.size(), 195u);
    EXPECT_TRUE(codesMatch("ABC234", "ABC234"));
    EXPECT_FALSE(codesMatch("ABC234", "ABC235"));
    EXPECT_FALSE(codesMatch("ABC234", "ABC2345"));
    EXPECT_EQ(makeSessionId().size(), 16u);
}

TEST(RateLimit, ABurstThenTheSteadyRate) {
    TokenBucket bucket(10.0, 5.0);
    int taken = 0;
    for (int i = 0; i < 20; ++i) taken += bucket.take(1.0, 0.0);
    EXPECT_EQ(taken, 5);
    EXPECT_FALSE(bucket.take(1.0, 0.05));
    EXPECT_TRUE(bucket.take(1.0, 0.1)); // one token per 0.1 s
}

TEST(RateLimit, RepeatedAbuseExhaustsAConnectionButOccasionalMistakesFade) {
    ConnectionGuard guard;
    for (int i = 0; i < 9; ++i) EXPECT_FALSE(guard.strike(0.0));
    EXPECT_TRUE(guard.strike(0.0));
    ConnectionGuard patient;
    for (int i = 0; i < 100; ++i) EXPECT_FALSE(patient.strike(i * 10.0)); // one mistake every 10 s
}

TEST(RateLimit, AFloodIsRefusedByMessagesAndByBytes) {
    ConnectionGuard guard(kFollowerRates);
    int admitted = 0;
    for (int i = 0; i < 1000; ++i) admitted += guard.admit(50, 0.0);
    EXPECT_EQ(admitted, int(kFollowerRates.messageBurst));
    ConnectionGuard bytes(kFollowerRates);
    EXPECT_TRUE(bytes.admit(16000, 0.0));
    EXPECT_FALSE(bytes.admit(1000, 0.0));
}
