#pragma once
// Shared by the lecture UI tests (LectureUiTest.cpp and the Lecture*UiTest.cpp beside
// it): the sample lecture, as the build makes it.

#include <QString>

namespace atrium::test {

/// The sample lecture (ATRIUM_SAMPLE_LECTURE, made by the `lecture` target).
inline const QString kLecture = ATRIUM_SAMPLE_LECTURE;

} // namespace atrium::test
