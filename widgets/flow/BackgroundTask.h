#pragma once
// Long work of the window (loading a heart, baking a beat) on a worker thread
// (workerPool), behind a progress dialog that paints while it works and has a Cancel
// button; its stage and percentage also go to the HUD (statusText). The UI thread
// polls the work's progress: no Qt object crosses threads.

#include <QObject>
#include <QPointer>
#include <QProgressDialog>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>
#include <string>

namespace atrium::widgets {

class BackgroundTask : public QObject {
    Q_OBJECT
public:
    /// What the work reports to, from its thread.
    class Progress {
    public:
        /// The stage and the fraction of it done (0..1). Throws Cancelled once the user
        /// cancelled: let it pass (any catch-all must rethrow it).
        virtual void report(const std::string& stage, double fraction) = 0;
        virtual bool cancelled() const = 0;

    protected:
        ~Progress() = default;
    };
    /// Thrown by Progress::report after Cancel. Not a std::exception, so that no stage
    /// that recovers from errors mistakes it for one.
    struct Cancelled {};

    /// `what` names the work in the dialog and the HUD, e.g. "Loading the heart".
    /// `modality`: WindowModal for work the window must wait for, NonModal for work
    /// beside which the user goes on.
    BackgroundTask(QWidget* dialogParent, QString what, Qt::WindowModality modality);
    /// Cancels work in progress; its thread stops at its next report.
    ~BackgroundTask() override;

    /// Runs `work` unless work is already running (then returns false). Exceptions it
    /// throws end in failed(what()), Cancelled in cancelled(), a return in succeeded().
    /// `detail` is shown under the title in the dialog (e.g. which heart).
    bool start(std::function<void(Progress&)> work, const QString& detail = {});
    bool busy() const { return job_ != nullptr; }
    /// As the Cancel button does.
    void cancel();
    /// E.g. "loading the heart: extracting surfaces 40 %"; empty when idle.
    QString statusText() const;
    QProgressDialog* dialog() const { return dialog_; }

Q_SIGNALS:
    void succeeded();
    /// The progress dialog is closed when this comes, so that `message` is the only one.
    void failed(const QString& message);
    void cancelled();

private:
    struct Job;
    void poll();
    void finish();

    QWidget* dialogParent_;
    QString what_;
    Qt::WindowModality modality_;
    QPointer<QProgressDialog> dialog_;
    std::shared_ptr<Job> job_;
    QTimer poll_;
};

} // namespace atrium::widgets
