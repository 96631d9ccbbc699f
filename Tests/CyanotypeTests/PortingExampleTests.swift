import Foundation
import Testing
import Cyanotype

/// The README's porting example, as Core Image users write it, compiled and run here.
@Suite struct PortingExampleTests {
    @Test func theReadmeSnippetRuns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-port-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("photo.jpg")
        try CIContext().writeJPEGRepresentation(
            of: CIImage(color: CIColor(red: 0.8, green: 0.5, blue: 0.3)).cropped(to: CGRect(x: 0, y: 0, width: 32, height: 24)),
            to: input, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)

        // --- the README snippet, unchanged apart from the paths ---
        let photo = CIImage(contentsOf: input, options: [.applyOrientationProperty: true])!
        let sepia = CIFilter.sepiaTone()
        sepia.inputImage = photo
        sepia.intensity = 0.8
        let vignetted = sepia.outputImage!.applyingFilter("CIVignette", parameters: [kCIInputIntensityKey: 1.0])
        let context = CIContext()
        try context.writeJPEGRepresentation(
            of: vignetted, to: dir.appendingPathComponent("out.jpg"),
            colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!,
            options: [CIImageRepresentationOption(rawValue: kCGImageDestinationLossyCompressionQuality as String): 0.9])
        // ---

        let out = try #require(CIImage(contentsOf: dir.appendingPathComponent("out.jpg")))
        #expect(out.extent == CGRect(x: 0, y: 0, width: 32, height: 24))
    }
}
