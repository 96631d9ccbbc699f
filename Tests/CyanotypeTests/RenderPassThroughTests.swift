import Foundation
import Testing

@testable import Cyanotype

/// A render job decides pass-through once: stored pixels already in the destination's form are
/// copied (or lent) without a tile, anything else is rendered. Oracle: the source's bytes, made
/// by a formula here.
@Suite struct RenderPassThroughTests {
    static let (width, height) = (40, 30)

    /// Opaque RGBA8 whose bytes are a formula of (x, y) (row 0 at the top).
    static func sourceBytes() -> Data {
        var d = Data(count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                d[i] = UInt8((x * 7 + y * 3) & 0xFF)
                d[i + 1] = UInt8((x * 5 + y * 11) & 0xFF)
                d[i + 2] = UInt8((x * y) & 0xFF)
                d[i + 3] = 255
            }
        }
        return d
    }

    static func image() -> CIImage {
        CIImage(
            bitmapData: sourceBytes(), bytesPerRow: width * 4, size: CGSize(width: width, height: height), format: .RGBA8,
            colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
    }

    @Test func anUnfilteredBitmapIsCopiedWithoutATile() throws {
        let context = CIContext()
        let srgb = CGColorSpace(name: CGColorSpace.sRGB)
        let whole = try context.renderToData(Self.image(), from: Self.image().extent, format: .RGBA8, colorSpace: srgb)
        #expect(whole.data == Self.sourceBytes())
        #expect(context.lastRenderStatistics.tiles == 0 && context.lastRenderStatistics.sourcePixels == Self.width * Self.height)
        // A part: the rows of that part (y up: the rect's top is row height - maxY).
        let part = try context.renderToData(Self.image(), from: CGRect(x: 5, y: 4, width: 10, height: 6), format: .RGBA8, colorSpace: srgb)
        let src = Self.sourceBytes()
        for r in 0..<6 {
            let srcRow = Self.height - 10 + r
            #expect(part.data[(r * 40)..<(r * 40 + 40)] == src[(srcRow * 160 + 20)..<(srcRow * 160 + 60)], "row \(r)")
        }
        #expect(context.lastRenderStatistics.tiles == 0)
    }

    @Test func theJobLendsAnExactBitmapAndRendersAFilteredOne() throws {
        let context = CIContext()
        let rect = PixelRect(x: 0, y: 0, width: Self.width, height: Self.height)
        var memory = Data(count: Self.width * Self.height * 4)
        func run(_ image: CIImage, lends: Bool) throws -> Render.Outcome {
            try memory.withUnsafeMutableBytes { raw in
                let writer = try #require(
                    DestinationWriter(
                        base: raw.baseAddress!, rowBytes: Self.width * 4, bounds: rect, format: .RGBA8,
                        colorSpace: CGColorSpace(name: CGColorSpace.sRGB), premultiplied: true))
                return try Render(node: image.node, rect: rect, delivery: .bitmap(writer, lendsUnchanged: lends), environment: context.environment).run()
            }
        }
        guard case .unchanged(let bitmap) = try run(Self.image(), lends: true) else {
            Issue.record("an unfiltered bitmap of the rect's size is lent")
            return
        }
        let lent = bitmap.data.withUnsafeBytes { Data($0.prefix(Self.width * Self.height * 4)) }
        #expect(lent == Self.sourceBytes())
        #expect(memory == Data(count: Self.width * Self.height * 4), "nothing written when lent")
        guard case .copied = try run(Self.image(), lends: false) else {
            Issue.record("copied when not lent")
            return
        }
        #expect(memory == Self.sourceBytes())
        // A filtered image is computed, tile by tile.
        guard case .rendered = try run(Self.image().applyingFilter("CIColorInvert"), lends: true) else {
            Issue.record("a filtered image is rendered")
            return
        }
        #expect(context.lastRenderStatistics.tiles > 0)
    }
}

/// A job's progress counts the tiles its renders ran, against the tile grid worked out here.
@Suite struct RenderJobProgressTests {
    @Test func progressCountsEveryTileOfTheGridAndNoneForACopy() throws {
        let side = 16
        let job = CIRenderJob()
        let context = CIContext(options: [.tileSize: side]).forJob(job)
        #expect(job.progress == (0, 0))
        let image = RenderPassThroughTests.image()
        let (w, h) = (RenderPassThroughTests.width, RenderPassThroughTests.height)
        let grid = ((w + side - 1) / side) * ((h + side - 1) / side)
        _ = try context.renderToData(image.applyingFilter("CIColorInvert"), from: image.extent)
        #expect(job.progress == (grid, grid))
        _ = try context.renderToData(image.applyingFilter("CIColorInvert"), from: CGRect(x: 0, y: 0, width: side, height: side))
        #expect(job.progress == (grid + 1, grid + 1))
        // Pixels copied as they are: no tile.
        _ = try context.renderToData(image, from: image.extent, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(job.progress == (grid + 1, grid + 1))
    }
}
