import Foundation
import Testing
@testable import Cyanotype

/// OpenCV's own `CascadeClassifier.detectMultiScale` (scale 1.1, 3 neighbours) on the same
/// photo, as boxes (x, y from the top, width, height), and the eyes it finds in each face box
/// (2 neighbours), run from a Python that has `cv2` 4.x: `CYANOTYPE_OPENCV_PYTHON`, else
/// each `python3` on the PATH (scripts/setup.sh --test installs opencv-python-headless when pip can). nil when
/// none has it.
private func openCVFaces(_ path: String) -> [(face: [Int], eyes: [[Int]], smiles: [[Int]])]? {
    let script = """
        import sys, cv2
        g = cv2.cvtColor(cv2.imread(sys.argv[1]), cv2.COLOR_BGR2GRAY)
        d = '/usr/share/opencv4/haarcascades/'
        c = cv2.CascadeClassifier(d + 'haarcascade_frontalface_default.xml')
        e = cv2.CascadeClassifier(d + 'haarcascade_eye.xml')
        s = cv2.CascadeClassifier(d + 'haarcascade_smile.xml')
        for (x, y, w, h) in c.detectMultiScale(g, 1.1, 3):
            eyes = e.detectMultiScale(g[y:y + h, x:x + w], 1.1, 2)
            smiles = s.detectMultiScale(g[y + h // 2:y + h, x:x + w], 1.1, 10)
            print(x, y, w, h, ';'.join(','.join(str(v) for v in r) for r in eyes) or '-', ';'.join(','.join(str(v) for v in r) for r in smiles) or '-')
        """
    let environment = ProcessInfo.processInfo.environment
    let onPath = (environment["PATH"] ?? "/usr/bin").split(separator: ":").map { "\($0)/python3" }
    for python in [environment["CYANOTYPE_OPENCV_PYTHON"]].compactMap({ $0 }) + onPath where FileManager.default.isExecutableFile(atPath: python) {
        guard let r = runTool(python, ["-c", script, path]), r.status == 0 else { continue }
        return r.out.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            let face = parts.prefix(4).compactMap { Int($0) }
            func boxes(_ k: Int) -> [[Int]] {
                parts.count > k && parts[k] != "-" ? parts[k].split(separator: ";").map { $0.split(separator: ",").compactMap { Int($0) } } : []
            }
            return (face, boxes(4), boxes(5))
        }
    }
    return nil
}

@Suite struct DetectorFaceTests {
    let astronaut = "/work/shared/images/astronaut.png"
    let coffee = "/work/shared/images/coffee.png"

    /// OpenCV 4.14.0's answer on astronaut.png (recorded with opencv-python-headless from
    /// PyPI), used when no Python here has cv2: one face at (177, 66) 95 x 95, eyes at (10, 20)
    /// and (55, 23), 29 x 29, in the face box, a smile at (17, 14) 56 x 28 in its lower half.
    let recorded: [(face: [Int], eyes: [[Int]], smiles: [[Int]])] = [([177, 66, 95, 95], [[10, 20, 29, 29], [55, 23, 29, 29]], [[17, 14, 56, 28]])]

    private func photo(_ path: String) throws -> CIImage? {
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record("\(path) is missing (the scikit-image sample photos in /work/shared/images)")
            return nil
        }
        return CIImage(contentsOf: URL(fileURLWithPath: path))
    }

    @Test func theAstronautsFaceAndEyesAreWhereOpenCVFindsThem() throws {
        guard let img = try photo(astronaut) else { return }
        let theirs = openCVFaces(astronaut) ?? recorded
        let detector = try #require(CIDetector(ofType: CIDetectorTypeFace, context: nil, options: [CIDetectorAccuracy: CIDetectorAccuracyHigh]))
        let faces = try detector.detectFeatures(in: img).compactMap { $0 as? CIFaceFeature }
        try #require(faces.count == theirs.count)
        let h = Double(img.extent.height)
        for (f, t) in zip(faces, theirs) {
            #expect(f.type == CIFeatureTypeFace)
            // Core Image's bounds: y up.
            let expected = CGRect(x: Double(t.face[0]), y: h - Double(t.face[1] + t.face[3]), width: Double(t.face[2]), height: Double(t.face[3]))
            let slack = 0.08 * expected.width
            #expect(abs(f.bounds.minX - expected.minX) <= slack && abs(f.bounds.minY - expected.minY) <= slack, "\(f.bounds) vs \(expected)")
            #expect(abs(f.bounds.width - expected.width) <= slack && abs(f.bounds.height - expected.height) <= slack, "\(f.bounds) vs \(expected)")
            // Eyes: the centres of OpenCV's eye boxes, image-left first.
            let eyes = t.eyes.map { e in CGPoint(x: Double(t.face[0] + e[0]) + Double(e[2]) / 2, y: h - (Double(t.face[1] + e[1]) + Double(e[3]) / 2)) }
                .sorted { $0.x < $1.x }
            try #require(eyes.count == 2)
            #expect(f.hasLeftEyePosition && f.hasRightEyePosition)
            #expect(distance(f.leftEyePosition, eyes[0]) <= 6, "left eye \(f.leftEyePosition) vs \(eyes[0])")
            #expect(distance(f.rightEyePosition, eyes[1]) <= 6, "right eye \(f.rightEyePosition) vs \(eyes[1])")
            // Not searched for: no mouth, smile or blink is claimed.
            #expect(!f.hasMouthPosition && !f.hasSmile && !f.leftEyeClosed && !f.hasTrackingID)
        }
    }

    @Test func asAskedTheAstronautsSmileIsFoundWhereOpenCVFindsItAndIsHerMouth() throws {
        guard let img = try photo(astronaut) else { return }
        let theirs = try #require((openCVFaces(astronaut) ?? recorded).first)
        let smile = try #require(theirs.smiles.first)
        let h = Double(img.extent.height)
        let mouth = CGPoint(x: Double(theirs.face[0] + smile[0]) + Double(smile[2]) / 2, y: h - (Double(theirs.face[1] + theirs.face[3] / 2 + smile[1]) + Double(smile[3]) / 2))
        let detector = try #require(CIDetector(ofType: CIDetectorTypeFace, context: nil))
        let face = try #require(detector.features(in: img, options: [CIDetectorSmile: true]).first as? CIFaceFeature)
        #expect(face.hasSmile && face.hasMouthPosition)
        #expect(distance(face.mouthPosition, mouth) <= 6, "mouth \(face.mouthPosition) vs \(mouth)")
        #expect(face.mouthPosition.y < face.leftEyePosition.y)
    }

    @Test func theCoffeePhotoHasNoFaceAsForOpenCV() throws {
        guard let img = try photo(coffee) else { return }
        let theirs = openCVFaces(coffee)?.count ?? 0  // OpenCV 4.14.0 finds none
        #expect(CIDetector(ofType: CIDetectorTypeFace, context: nil)!.features(in: img).count == theirs)
    }

    @Test func aMinimumFeatureSizeAboveTheFaceFindsNone() throws {
        guard let img = try photo(astronaut) else { return }
        // The face is 95 of 512 pixels: 0.3 of the side asks for 154 or more.
        let d = CIDetector(ofType: CIDetectorTypeFace, context: nil, options: [CIDetectorMinFeatureSize: 0.3])!
        #expect(d.features(in: img).isEmpty)
    }

    @Test func aMissingModelIsATypedErrorAndAnEmptyResult() throws {
        // The model folder comes from the environment only in this test's child process: run
        // the check on a detector whose options point elsewhere.
        let img = CIImage(color: CIColor(red: 0.5, green: 0.5, blue: 0.5)).cropped(to: CGRect(x: 0, y: 0, width: 64, height: 64))
        let d = try #require(CIDetector(ofType: CIDetectorTypeFace, context: nil))
        var options = d.options
        options.cascadeFolder = "/nonexistent/haarcascades"
        let missing = CIDetector(kind: .face, context: CIContext(), options: options)
        #expect(throws: CIDetectorError.modelMissing(path: "/nonexistent/haarcascades/haarcascade_frontalface_default.xml")) {
            try missing.detectFeatures(in: img)
        }
        #expect(missing.features(in: img).isEmpty)
        #expect(
            CIDetectorError.modelMissing(path: "/x.xml").description
                == "the face detector's model /x.xml is missing; install Debian's opencv-data package")
    }

    @Test func aFileThatIsNoCascadeIsATypedError() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cyanotype-not-a-cascade-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("<opencv_storage><cascade><featureType>LBP</featureType></cascade></opencv_storage>".utf8).write(to: url)
        #expect(throws: CIDetectorError.modelUnreadable(path: url.path, reason: "not a Haar cascade")) { try HaarCascade(contentsOf: url.path) }
    }
}
