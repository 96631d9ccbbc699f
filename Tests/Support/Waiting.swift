import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Checks `condition` until it holds or `seconds` have passed (every `every` seconds);
/// whether it held. The tests' only polling sleep lives here: a wait always has a deadline,
/// and no test asserts how long something took.
@discardableResult public func waitUntil(seconds: Double, every: Double = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(useconds_t(every * 1_000_000))
    }
}
