import Foundation

/// A task executor with a thread of its own, for code under test that must keep running while the
/// suite's synchronous tests hold the threads of the shared pool (on a 2-core machine, both of
/// them, for a minute at a time). `Task(executorPreference: executor) { … }` runs there.
package final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    package init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// Ends the thread once the jobs queued so far have run.
    package func stop() {
        condition.withLock {
            stopped = true
            condition.signal()
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
