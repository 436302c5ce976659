#include "sim/heart/VtkMessageRouting.h"

#include <vtkObjectFactory.h>
#include <vtkOutputWindow.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <mutex>

namespace atrium::heart {
namespace {

thread_local std::string currentFile;

/// "ERROR: In /path/vtkX.cxx, line 12\nvtkX (0x1234): message\n\n" -> "message".
std::string cleaned(const char* text) {
    std::string s = text ? text : "";
    const auto object = s.find("(0x");
    const auto tag = s.find("): ", object == std::string::npos ? 0 : object);
    if (object != std::string::npos && tag != std::string::npos) s = s.substr(tag + 3);
    std::replace(s.begin(), s.end(), '\n', ' ');
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
}

class RoutedOutputWindow : public vtkOutputWindow {
public:
    static RoutedOutputWindow* New();
    vtkTypeMacro(RoutedOutputWindow, vtkOutputWindow)

    void setSink(std::string program, std::function<void(const std::string&)> sink) {
        std::lock_guard lock(mutex_);
        program_ = std::move(program);
        sink_ = std::move(sink);
    }
    void DisplayText(const char* text) override { emit("VTK", text); }
    void DisplayErrorText(const char* text) override { emit("VTK error", text); }
    void DisplayWarningText(const char* text) override { emit("VTK warning", text); }
    void DisplayGenericWarningText(const char* text) override { emit("VTK warning", text); }
    void DisplayDebugText(const char*) override {}

private:
    void emit(const char* kind, const char* text) {
        const std::string message = cleaned(text);
        if (message.empty()) return;
        std::lock_guard lock(mutex_);
        std::string line = program_ + ": " + kind;
        if (!currentFile.empty()) line += " (" + currentFile + ")";
        line += ": " + message;
        if (sink_) sink_(line);
        else std::cerr << line << "\n" << std::flush;
    }
    std::mutex mutex_;
    std::string program_ = "atrium";
    std::function<void(const std::string&)> sink_;
};

vtkStandardNewMacro(RoutedOutputWindow);

} // namespace

void routeVtkMessages(const std::string& program, std::function<void(const std::string&)> sink) {
    static vtkSmartPointer<RoutedOutputWindow> window = vtkSmartPointer<RoutedOutputWindow>::New();
    window->setSink(program, std::move(sink));
    vtkOutputWindow::SetInstance(window);
}

VtkFileContext::VtkFileContext(const std::filesystem::path& file) : previous_(currentFile) { currentFile = file.string(); }

VtkFileContext::~VtkFileContext() { currentFile = previous_; }

} // namespace atrium::heart
