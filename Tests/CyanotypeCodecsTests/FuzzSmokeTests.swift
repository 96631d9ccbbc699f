import Foundation
import Testing
@testable import CyanotypeCodecs

/// Mutation smoke test: bit flips, truncation, overwritten and inserted bytes over every
/// sample; nothing may crash. `ITERS=30000 SEED=n swift test -c release --filter mutatedFiles`
/// runs a longer session: 270 000 inputs ran clean in release, 180 000 more with
/// `--sanitize=address --scratch-path .build-asan` (ASAN_OPTIONS=detect_leaks=0).
@Test func mutatedFilesNeverCrash() throws {
    var rng = SplitMix(seed: UInt64(ProcessInfo.processInfo.environment["SEED"] ?? "") ?? 1)
    var samples = try sampleFiles().map { $0.1 }
    samples += [Fixtures.cmykJPEG, Fixtures.grayJPEG, Fixtures.plain16PNG, Fixtures.interlacedPNG]
    var p = EncodeOptions(); p.progressive = true; p.iccProfile = fakeICC(count: 70000)
    samples.append(try encode8(smoothRGBA8(width: 30, height: 20), 30, 20, alpha: false, .jpeg, p))
    let iters = Int(ProcessInfo.processInfo.environment["ITERS"] ?? "") ?? 150
    var errs = 0, oks = 0
    for s in samples {
        for _ in 0..<iters {
            var b = [UInt8](s)
            switch rng.next() % 4 {
            case 0: for _ in 0..<(1 + Int(rng.next() % 8)) { let i = Int(rng.next() % UInt64(b.count)); b[i] ^= UInt8(1 << (rng.next() % 8)) }
            case 1: b = Array(b.prefix(Int(rng.next() % UInt64(b.count))))
            case 2: for _ in 0..<(1 + Int(rng.next() % 4)) { let i = Int(rng.next() % UInt64(b.count)); b[i] = [0, 0xFF, 0x7F, 0x80][Int(rng.next() % 4)] }
            default: let i = Int(rng.next() % UInt64(b.count)); b.insert(contentsOf: (0..<Int(rng.next() % 16)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, at: i)
            }
            let d = Data(b)
            if (try? ImageCodecs.decode(d, limits: DecodeLimits(maxPixels: 1 << 22))) == nil { errs += 1 } else { oks += 1 }
            _ = try? ImageCodecs.decode(d, limits: DecodeLimits(maxPixels: 1 << 22), strict: false)
            _ = try? ImageCodecs.readHeader(d)
        }
    }
    #expect(errs > 0 && oks > 0)
}
