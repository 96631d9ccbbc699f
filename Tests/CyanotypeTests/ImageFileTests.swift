import Foundation
import Testing
@testable import Cyanotype
import CyanotypeCodecs

/// Files in and out through Core Image's API.
@Suite struct ImageFileTests {
    let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples")
    let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-tests-\(UUID().uuidString)")

    @Test func readsTheSamplePhotoLazily() throws {
        let img = try #require(CIImage(contentsOf: samples.appendingPathComponent("astronaut.png")))
        #expect(img.extent == CGRect(x: 0, y: 0, width: 512, height: 512))
        #expect(img.properties[kCGImagePropertyPixelWidth] as? Int == 512)
        #expect(img.properties[kCyanotypePropertyFileFormat] as? String == "png")
    }

    @Test func pngRoundTripIsExactAndJPEGIsClose() throws {
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let px = testPixels(width: 31, height: 17, alpha: true)
        let img = image(px, 31, 17)
        let ctx = CIContext()
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)!
        let png = tmp.appendingPathComponent("a.png")
        try ctx.writePNGRepresentation(of: img, to: png, format: .RGBA8, colorSpace: srgb)
        let back = try #require(CIImage(contentsOf: png))
        #expect(try render8(back, back.extent) == px)
        let jpeg = try #require(ctx.jpegRepresentation(of: img, colorSpace: srgb, options: [.lossyCompressionQuality: 0.95, .chromaSubsampling: Cyanotype.ChromaSubsampling.s444]))
        let j = try #require(CIImage(data: jpeg))
        let jp = try render8(j, j.extent)
        var err = 0.0
        for i in stride(from: 0, to: px.count, by: 4) { for k in 0..<3 { err += pow(Double(jp[i + k]) - Double(px[i + k]), 2) } }
        let psnr = 10 * log10(255 * 255 / (err / Double(31 * 17 * 3)))
        #expect(psnr > 30, "JPEG PSNR \(psnr)")
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == ["a.png"])
    }

    @Test func sixteenBitPNGSurvivesBitExact() throws {
        var v = [UInt16](repeating: 0, count: 9 * 5 * 4)
        for i in 0..<v.count { v[i] = UInt16((i * 2749) % 65536) }
        for i in stride(from: 3, to: v.count, by: 4) { v[i] = 65535 }
        let data = v.withUnsafeBytes { Data($0) }
        let img = CIImage(
            unpremultipliedBitmapData: data, bytesPerRow: 9 * 8, size: CGSize(width: 9, height: 5), format: .RGBA16, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        let ctx = CIContext()
        let png = try #require(ctx.pngRepresentation(of: img, format: .RGBA16, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!))
        let decoded = try ImageCodecs.decode(png)
        #expect(decoded.bitDepth == 16)
        let diff = zip(decoded.pixels16, v).map { abs(Int($0) - Int($1)) }.max()!
        #expect(diff <= 1, "16-bit values drift by \(diff)")
    }

    @Test func badFilesGiveTypedErrors() throws {
        #expect(CIImage(data: Data()) == nil)
        #expect(throws: ImageIOError.codec(path: nil, .empty)) { try CIImage.read(data: Data()) }
        let missing = URL(fileURLWithPath: "/nonexistent/x.png")
        #expect(CIImage(contentsOf: missing) == nil)
        do {
            _ = try CIImage.read(contentsOf: missing)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/x.png: "))
        }
        // A truncated PNG reads its header, then fails at render time with a typed error.
        let full = try Data(contentsOf: samples.appendingPathComponent("coffee.png"))
        let cut = try CIImage.read(data: full.prefix(full.count / 2))
        #expect(throws: CIRenderError.self) { try CIContext().renderToData(cut, from: cut.extent) }
    }

    @Test func orientationPropertyIsApplied() throws {
        // A 2x1 JPEG-free check through the engine: orientation 6 turns 2x1 into 1x2.
        let img = image(testPixels(width: 2, height: 1), 2, 1)
        let png = try #require(CIContext().pngRepresentation(of: img, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!))
        let read = try CIImage.read(data: png, options: [.applyOrientationProperty: true])
        #expect(read.extent.size == CGSize(width: 2, height: 1))  // PNG without EXIF: orientation 1
        #expect(img.oriented(forExifOrientation: 6).extent.size == CGSize(width: 1, height: 2))
    }
}

@Suite struct AtomicWriteTests {
    @Test func replacingAnExistingFileKeepsItWhole() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("out.bin")
        let ctx = CIContext()
        for i in 0..<4 {
            try ctx.writeAtomically(Data(repeating: UInt8(i), count: 100 + i), to: url)
            #expect(try Data(contentsOf: url) == Data(repeating: UInt8(i), count: 100 + i))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.bin"])
        #expect(throws: ImageIOError.self) { try ctx.writeAtomically(Data([1]), to: URL(fileURLWithPath: "/nonexistent-dir/x.png")) }
    }

    /// The record an interrupted command clears: a temporary file is in it from its creation
    /// until it is renamed into place or discarded, and nowhere after.
    @Test func temporaryFilesAreRecordedWhileTheyExist() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let kept = dir.appendingPathComponent(".kept.tmp").path, dropped = dir.appendingPathComponent(".dropped.tmp").path
        let fdA = TemporaryFiles.create(kept), fdB = TemporaryFiles.create(dropped)
        #expect(fdA >= 0 && fdB >= 0)
        #expect(TemporaryFiles.create(kept) == -1, "created afresh only")
        close(fdA)
        close(fdB)
        #expect(TemporaryFiles.current.isSuperset(of: [kept, dropped]))
        #expect(TemporaryFiles.commit(kept, to: dir.appendingPathComponent("final.bin").path) == 0)
        TemporaryFiles.discard(dropped)
        #expect(TemporaryFiles.current.isDisjoint(with: [kept, dropped]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["final.bin"])
    }
}
