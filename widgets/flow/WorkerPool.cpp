#include "widgets/flow/WorkerPool.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

namespace atrium::widgets {

QThreadPool& workerPool() {
    static QPointer<QThreadPool> pool;
    if (!pool) {
        pool = new QThreadPool(QCoreApplication::instance());
        pool->setObjectName("atriumWorkerPool");
        pool->setMaxThreadCount(4); // a load, a bake, a video and a retiring simulation at once
    }
    return *pool;
}

} // namespace atrium::widgets
