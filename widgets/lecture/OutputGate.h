#pragma once
// The one gate every way out of the window asks before it renders or writes a pixel:
// a screenshot (F12, `atrium --screenshot`), a recording of the view (Ctrl+R) and a
// narrative's video export (the Narratives menu, `atrium --export-video`).
//
// It decides from the lecture open in the window - its restriction flags (no video,
// a largest size, expiry) and whether its author is present, through the package's
// own narrative::ContentGate - whatever narratives file is being played: narratives
// opened beside a lecture (extracted from it, say) still show that lecture's heart.
// Without a lecture only the renderer's own bounds apply (16 to
// SceneView::kMaxImageSide pixels a side). The SceneView owns it, so that the view's
// own outputs (renderImage, startRecording) ask it too; LectureUi binds it to the
// lecture it opens. A recording or an export asks at every frame: a lecture opened
// meanwhile binds the frames still to come.

#include "narrative/Restrictions.h"

#include <QSize>
#include <QString>

#include <memory>
#include <optional>

namespace atrium::package {
class ContentPackage;
}

namespace atrium::widgets {

class OutputGate {
public:
    /// The smallest and largest image or video side the renderer makes, in pixels.
    static constexpr int kMinSide = 16, kMaxSide = 8192;

    /// Binds the gate to the lecture now open (null: none).
    void setLecture(std::shared_ptr<const package::ContentPackage> lecture);
    bool hasLecture() const { return lecture_ != nullptr; }

    /// nullopt when an image (screenshot, render) of `size` pixels may leave the app,
    /// else why not (the message names the flag or the limit).
    std::optional<QString> refuseImage(QSize size) const;
    /// The same for a video (a recording or a narrative's export) of `size` pixels.
    std::optional<QString> refuseVideo(QSize size) const;
    /// Whether video may leave the app at some size (the flag alone: menus reflect it).
    std::optional<QString> refuseVideo() const;

    /// The largest size the lecture allows (nullopt: no limit beyond kMaxSide), for
    /// the author present too (then nullopt).
    std::optional<QSize> limit() const;
    /// `wanted` scaled down, keeping its shape, to fit the limit (and kMaxSide):
    /// dialogs offer this as their default size.
    QSize fit(QSize wanted) const;

private:
    std::optional<QString> refuse(narrative::Operation op, QSize size) const;

    std::shared_ptr<const package::ContentPackage> lecture_;
};

} // namespace atrium::widgets
