// Face detection drawing boxes: each CIFaceFeature's bounds tinted over the photo, the way
// demo apps highlight faces without UIKit.
import CoreImage
import Foundation
import Testing

private func highlightFaces(in photo: CIImage) -> (image: CIImage, faces: [CIFaceFeature]) {
    let detector = CIDetector(ofType: CIDetectorTypeFace, context: nil, options: [CIDetectorAccuracy: CIDetectorAccuracyHigh])!
    let faces = detector.features(in: photo).compactMap { $0 as? CIFaceFeature }
    var output = photo
    for face in faces {
        let box = CIImage(color: CIColor(red: 1, green: 0, blue: 0, alpha: 0.5)).cropped(to: face.bounds)
        output = box.composited(over: output)
    }
    return (output, faces)
}

@Suite struct DetectorFaceBoxes {
    @Test func theAstronautsFaceIsBoxedWithItsEyesInside() throws {
        let url = URL(fileURLWithPath: "/work/shared/images/astronaut.png")
        guard let photo = CIImage(contentsOf: url) else {
            Issue.record("\(url.path) is missing (scikit-image's sample photo)")
            return
        }
        let (boxed, faces) = highlightFaces(in: photo)
        try #require(faces.count == 1)
        let face = faces[0]
        // A head-sized box in the upper middle of the 512 x 512 portrait.
        #expect(face.bounds.width > 70 && face.bounds.width < 130)
        #expect(face.bounds.midY > 300 && face.bounds.midX > 150 && face.bounds.midX < 300)
        #expect(face.hasLeftEyePosition && face.hasRightEyePosition)
        #expect(face.bounds.contains(face.leftEyePosition) && face.bounds.contains(face.rightEyePosition))
        #expect(face.leftEyePosition.x < face.rightEyePosition.x)
        #expect(face.leftEyePosition.y > face.bounds.midY)  // eyes in the upper half (y up)
        // The box is tinted: red over the face, the corner of the photo untouched.
        let context = CIContext()
        var inside = [UInt8](repeating: 0, count: 4), original = [UInt8](repeating: 0, count: 4)
        let centre = CGRect(x: face.bounds.midX.rounded(), y: face.bounds.midY.rounded(), width: 1, height: 1)
        context.render(boxed, toBitmap: &inside, rowBytes: 4, bounds: centre, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        context.render(photo, toBitmap: &original, rowBytes: 4, bounds: centre, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
        #expect(Int(inside[0]) > Int(original[0]) + 20 && inside[1] < original[1])
    }
}
