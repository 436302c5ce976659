#pragma once
// Internal to sim/heart: collects VTK's error and warning events from readers, filters
// and writers instead of letting VTK print them, so callers can put the messages into
// their own exceptions (naming the file) or reports.

#include <vtkAlgorithm.h>
#include <vtkCommand.h>
#include <vtkExecutive.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace atrium::heart {

class VtkMessageLog : public vtkCommand {
public:
    static VtkMessageLog* New() { return new VtkMessageLog; }
    vtkTypeMacro(VtkMessageLog, vtkCommand)

    void Execute(vtkObject*, unsigned long event, void* callData) override {
        if (event == vtkCommand::ErrorEvent) errors.push_back(clean(callData));
        else if (event == vtkCommand::WarningEvent) warnings.push_back(clean(callData));
    }
    /// Observes an object, and for an algorithm also its executive (which reports
    /// "returned failure for request" after the algorithm's own error).
    void watch(vtkObject* object) {
        object->AddObserver(vtkCommand::ErrorEvent, this);
        object->AddObserver(vtkCommand::WarningEvent, this);
        if (auto* algorithm = vtkAlgorithm::SafeDownCast(object)) {
            algorithm->GetExecutive()->AddObserver(vtkCommand::ErrorEvent, this);
            algorithm->GetExecutive()->AddObserver(vtkCommand::WarningEvent, this);
        }
    }
    bool failed() const { return !errors.empty(); }
    std::string firstError() const { return errors.empty() ? std::string{} : errors.front(); }
    /// Every message, prefixed "VTK error: " or "VTK warning: ".
    std::vector<std::string> all() const {
        std::vector<std::string> out = isolatedMessages;
        for (const auto& e : errors) out.push_back("VTK error: " + e);
        for (const auto& w : warnings) out.push_back("VTK warning: " + w);
        return out;
    }

    std::vector<std::string> errors, warnings;
    /// Messages of a reader that ran in a child process (IsolatedVtkReaders.h), already prefixed.
    std::vector<std::string> isolatedMessages;

private:
    // VTK prefixes "[ERROR: In file, line N] ClassName (0x1234): "; keep the message.
    static std::string clean(void* callData) {
        std::string text = callData ? static_cast<const char*>(callData) : "unknown VTK error";
        const auto object = text.find("(0x");
        const auto tag = text.find("): ", object == std::string::npos ? 0 : object);
        if (tag != std::string::npos) text = text.substr(tag + 3);
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
        std::replace(text.begin(), text.end(), '\n', ' ');
        return text;
    }
};

} // namespace atrium::heart
