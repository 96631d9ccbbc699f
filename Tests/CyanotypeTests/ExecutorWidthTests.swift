import Foundation
import Testing

@testable import Cyanotype

/// `Executor.width` bounds how many loop bodies run at once, counted (never timed).
@Suite struct ExecutorWidthTests {
    /// Bodies running now, the most seen at once, and how many ran.
    private final class Occupancy: @unchecked Sendable {
        private let lock = NSLock()
        private var running = 0
        private(set) var peak = 0
        private(set) var total = 0
        func enter() {
            lock.lock(); running += 1; peak = max(peak, running); total += 1; lock.unlock()
        }
        func leave() { lock.lock(); running -= 1; lock.unlock() }
    }

    /// Some arithmetic, so that bodies of a wider executor overlap (no sleep).
    private static func work(_ seed: Int) -> Int {
        var x = UInt64(truncatingIfNeeded: seed) &+ 0x9E37_79B9_7F4A_7C15
        for _ in 0..<20_000 { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        return Int(truncatingIfNeeded: x >> 60)
    }

    @Test(arguments: [1, 2, 3])
    func noMoreTilesRunAtOnceThanTheWidth(width: Int) {
        let executor = Executor(width: width)
        let occupancy = Occupancy()
        let sink = SharedValue(0)
        let rect = PixelRect(x: 0, y: 0, width: 64, height: 48)
        executor.forEachTile(rect, tileWidth: 8, tileHeight: 8) { t in
            occupancy.enter()
            let v = Self.work(t.minX * 1000 + t.minY)
            sink.update { $0 &+= v }
            occupancy.leave()
        }
        #expect(occupancy.total == (64 / 8) * (48 / 8))
        #expect(occupancy.peak >= 1 && occupancy.peak <= width, "peak \(occupancy.peak) with width \(width)")
        // A banded loop (a streaming encode's) and a plain one with more indices than threads.
        let banded = Occupancy()
        executor.forEachTile(rect, tileWidth: 16, tileHeight: 8, topDown: true, bandsAhead: 2) { t in
            banded.enter()
            _ = Self.work(t.minY)
            banded.leave()
        }
        #expect(banded.total == 4 * 6 && banded.peak <= width)
        let plain = Occupancy()
        executor.parallelFor(40) { i in
            plain.enter()
            _ = Self.work(i)
            plain.leave()
        }
        #expect(plain.total == 40 && plain.peak <= width)
    }

    @Test func aWidthOneExecutorRunsIndicesInOrderOnTheCallingThread() {
        let executor = Executor(width: 1)
        let order = SharedValue([Int]())
        let caller = pthread_self()
        let onCaller = SharedValue(true)
        executor.parallelFor(12) { i in
            order.update { $0.append(i) }
            if pthread_equal(pthread_self(), caller) == 0 { onCaller.update { $0 = false } }
        }
        #expect(order.read { $0 } == Array(0..<12))
        #expect(onCaller.read { $0 })
    }
}
