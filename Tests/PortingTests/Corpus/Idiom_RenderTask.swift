// Rendering into caller memory through a CIRenderDestination and a render task.
import CoreImage
import Testing

@Suite struct RenderTaskIdiom {
    @Test func aTaskFillsTheBufferAndCompletes() throws {
        let width = 4, height = 3
        var buffer = [UInt8](repeating: 9, count: width * height * 4)
        let image = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 2, height: 3))
            .composited(over: CIImage(color: CIColor(red: 0, green: 0, blue: 1)).cropped(to: CGRect(x: 0, y: 0, width: 4, height: 3)))
        let context = CIContext()
        try buffer.withUnsafeMutableBytes { raw in
            let destination = CIRenderDestination(bitmapData: raw.baseAddress!, width: width, height: height, bytesPerRow: width * 4, format: .RGBA8)
            destination.colorSpace = CGColorSpace(name: CGColorSpace.sRGB)
            let task = try context.startTask(toRender: image, to: destination)
            let info = try task.waitUntilCompleted()
            #expect(info.pixelsProcessed == width * height)
        }
        // Left half red, right half blue, every row.
        for row in 0..<height {
            #expect(Array(buffer[(row * width) * 4..<(row * width) * 4 + 4]) == [255, 0, 0, 255])
            #expect(Array(buffer[(row * width + 3) * 4..<(row * width + 3) * 4 + 4]) == [0, 0, 255, 255])
        }
    }

    @Test func aRegionLandsAtThePointAndLeavesTheRest() throws {
        var buffer = [UInt8](repeating: 0, count: 4 * 4 * 4)
        let white = CIImage(color: .white).cropped(to: CGRect(x: 0, y: 0, width: 10, height: 10))
        try buffer.withUnsafeMutableBytes { raw in
            let destination = CIRenderDestination(bitmapData: raw.baseAddress!, width: 4, height: 4, bytesPerRow: 16, format: .RGBA8)
            _ = try CIContext().startTask(toRender: white, from: CGRect(x: 0, y: 0, width: 2, height: 1), to: destination, at: CGPoint(x: 1, y: 0))
                .waitUntilCompleted()
        }
        // y up: the region is the bottom row (memory row 3), columns 1 and 2.
        let bottom = Array(buffer[48..<64])
        #expect(bottom == [0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0])
        #expect(buffer[0..<48].allSatisfy { $0 == 0 })
    }
}
