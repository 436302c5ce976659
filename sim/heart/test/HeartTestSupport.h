#pragma once
// Helpers shared by the heart tests.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace atrium::heart::test {

/// A fresh directory per test, named after the test and `prefix`, removed afterwards.
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "atrium_heart_") {
        namespace fs = std::filesystem;
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        path_ = fs::temp_directory_path() / (prefix + std::string(info->test_suite_name()) + "_" + info->name() +
                                             "_" + std::to_string(std::random_device{}()));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

} // namespace atrium::heart::test
