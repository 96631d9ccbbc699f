import Foundation

/// Faces: OpenCV's frontal-face Haar cascade (read at run time from Debian's `opencv-data`) over
/// the image in grey, grouped as OpenCV's `detectMultiScale` groups (3 neighbours); the eye
/// cascade then looks in the upper half of each face for the eyes, and, with `CIDetectorSmile`,
/// the smile cascade in the lower half for a smile (whose centre is the mouth). Blinks are
/// never reported.
enum FaceDetection {
    /// The cascades, each read once per process.
    private static let cache = CascadeCache()

    static func detect(_ image: CIImage, _ context: CIContext, _ o: DetectorOptions) throws(CIDetectorError) -> [CIFeature] {
        let faces = try cache.cascade(o.cascadeFolder + "/haarcascade_frontalface_default.xml")
        let eyes = try? cache.cascade(o.cascadeFolder + "/haarcascade_eye.xml")
        let smiles = o.smile ? try? cache.cascade(o.cascadeFolder + "/haarcascade_smile.xml") : nil
        let raster = try GreyRaster(image, context, maxSide: o.highAccuracy ? 1024 : 640)
        let side = min(raster.width, raster.height)
        let minSize = max(faces.windowWidth, Int((o.minFeatureSize ?? 0) * Double(side)))
        let hits = faces.detect(raster.pixels, raster.width, raster.height, scaleFactor: o.highAccuracy ? 1.1 : 1.25, minSize: minSize, maxSize: Int.max)
        var found: [CIFeature] = []
        for group in HaarCascade.group(hits, minNeighbors: 3).sorted(by: { $0.rect.width > $1.rect.width }) {
            let r = group.rect
            var left: CGPoint?, right: CGPoint?
            if let eyes, let (l, rr) = findEyes(eyes, raster, in: r) {
                left = raster.imagePoint(l.x, l.y)
                right = raster.imagePoint(rr.x, rr.y)
            }
            // A smile, searched for when asked, in the lower half of the face: its centre is the mouth.
            var mouth: CGPoint?
            if let smiles, let m = findSmile(smiles, raster, in: r) { mouth = raster.imagePoint(m.x, m.y) }
            let topLeft = raster.imagePoint(r.minX, r.minY), bottomRight = raster.imagePoint(r.maxX, r.maxY)
            let bounds = CGRect(x: topLeft.x, y: bottomRight.y, width: bottomRight.x - topLeft.x, height: topLeft.y - bottomRight.y)
            found.append(
                CIFaceFeature(
                    bounds: bounds, leftEye: left, rightEye: right, mouth: mouth, faceAngle: o.numberOfAngles > 1 ? 0 : nil, hasSmile: mouth != nil,
                    leftEyeClosed: false, rightEyeClosed: false))
        }
        return Array(found.prefix(o.maxFeatureCount ?? Int.max))
    }

    /// The centre of the strongest smile `smiles` finds in the lower half of the face box
    /// `face` (raster pixels), with 10 neighbours (smiles need more than faces); nil for none.
    static func findSmile(_ smiles: HaarCascade, _ raster: GreyRaster, in face: CGRect) -> CGPoint? {
        let region = CGRect(x: face.minX, y: face.minY + (face.height / 2).rounded(.down), width: face.width, height: face.height / 2).integral
            .intersection(CGRect(x: 0, y: 0, width: raster.width, height: raster.height))
        guard let crop = Self.crop(raster, region), region.width > Double(smiles.windowWidth + 1), region.height > Double(smiles.windowHeight + 1) else { return nil }
        let hits = smiles.detect(crop, Int(region.width), Int(region.height), scaleFactor: 1.1, minSize: smiles.windowWidth, maxSize: Int.max)
        return HaarCascade.group(hits, minNeighbors: 10).max { $0.count < $1.count }.map {
            CGPoint(x: region.minX + $0.rect.midX, y: region.minY + $0.rect.midY)
        }
    }

    /// The pixels of `raster` inside `region` (whole pixels, inside the raster), rows top-down.
    static func crop(_ raster: GreyRaster, _ region: CGRect) -> [UInt8]? {
        guard !region.isNull, region.width >= 1, region.height >= 1 else { return nil }
        let rw = Int(region.width), rh = Int(region.height)
        var out = [UInt8](repeating: 0, count: rw * rh)
        raster.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<rh {
                    let from = src.baseAddress! + (Int(region.minY) + y) * raster.width + Int(region.minX)
                    UnsafeMutableRawPointer(dst.baseAddress! + y * rw).copyMemory(from: from, byteCount: rw)
                }
            }
        }
        return out
    }

    /// The centres of the eyes (image-left first, raster pixels) found by `eyes` in the upper
    /// part of the face box `face`; nil unless one eye is found on each side of the face's middle.
    static func findEyes(_ eyes: HaarCascade, _ raster: GreyRaster, in face: CGRect) -> (CGPoint, CGPoint)? {
        let region = CGRect(x: face.minX, y: face.minY + face.height * 0.15, width: face.width, height: face.height * 0.45).integral
            .intersection(CGRect(x: 0, y: 0, width: raster.width, height: raster.height))
        let rw = Int(region.width), rh = Int(region.height)
        guard rw > eyes.windowWidth + 1, rh > eyes.windowHeight + 1, let crop = Self.crop(raster, region) else { return nil }
        let hits = eyes.detect(crop, rw, rh, scaleFactor: 1.1, minSize: max(eyes.windowWidth, Int(face.width / 8)), maxSize: Int(face.width / 2.5))
        let groups = HaarCascade.group(hits, minNeighbors: 2)
        let middle = face.midX - region.minX
        func best(_ side: (CGRect) -> Bool) -> CGPoint? {
            groups.filter { side($0.rect) }.max { $0.count < $1.count }.map {
                CGPoint(x: region.minX + $0.rect.midX, y: region.minY + $0.rect.midY)
            }
        }
        guard let l = best({ $0.midX < middle }), let r = best({ $0.midX >= middle }) else { return nil }
        return (l, r)
    }
}

/// Haar cascades read once per process and shared (a lock guards the table).
final class CascadeCache: @unchecked Sendable {
    private let lock = NSLock()
    private var cascades: [String: HaarCascade] = [:]

    /// The cascade at `path`, read on first use.
    func cascade(_ path: String) throws(CIDetectorError) -> HaarCascade {
        lock.lock()
        if let c = cascades[path] { lock.unlock(); return c }
        lock.unlock()
        let c = try HaarCascade(contentsOf: path)
        lock.lock()
        cascades[path] = c
        lock.unlock()
        return c
    }
}
