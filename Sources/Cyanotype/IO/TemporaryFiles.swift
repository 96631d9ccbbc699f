import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary files atomic writes are filling (beside their outputs), recorded so that a
/// process ending early can remove them: the command-line tool's signal handler calls
/// `removeAllForExit()`. Creating, renaming and removing one happen under the record's lock,
/// so a file is never created after the handler has removed the others.
package enum TemporaryFiles {
    private static let record = Record()

    /// Creates `path` afresh (it must not exist) for writing and records it: the descriptor,
    /// or -1 with `errno` set.
    package static func create(_ path: String, mode: mode_t = 0o644) -> Int32 {
        record.locked { paths in
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            if fd >= 0 { paths.insert(path) }
            return fd
        }
    }

    /// Records `path`, a temporary file another library opens itself (FFmpeg's muxer).
    package static func add(_ path: String) {
        record.locked { paths in _ = paths.insert(path) }
    }

    /// Renames the recorded `path` onto `destination` and forgets it: 0, or -1 with `errno`
    /// set (the file then stays recorded, for `discard`).
    package static func commit(_ path: String, to destination: String) -> Int32 {
        record.locked { paths in
            let rc = rename(path, destination)
            let saved = errno
            if rc == 0 { paths.remove(path) }
            errno = saved
            return rc
        }
    }

    /// Removes `path` if it is still there and forgets it.
    package static func discard(_ path: String) {
        record.locked { paths in
            unlink(path)
            paths.remove(path)
        }
    }

    /// Forgets `path` without touching it (its owner renamed or removed it).
    package static func forget(_ path: String) {
        record.locked { paths in _ = paths.remove(path) }
    }

    /// Removes every recorded file and keeps the record locked, so no thread creates another:
    /// the process is about to end (a signal). Returns how many were removed.
    @discardableResult
    package static func removeAllForExit() -> Int {
        record.lockForever { paths in
            for path in paths { unlink(path) }
            return paths.count
        }
    }

    /// The recorded paths (tests).
    package static var current: Set<String> { record.locked { $0 } }

    private final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private var paths = Set<String>()

        func locked<T>(_ body: (inout Set<String>) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&paths)
        }

        func lockForever<T>(_ body: (inout Set<String>) -> T) -> T {
            lock.lock()
            return body(&paths)
        }
    }
}
