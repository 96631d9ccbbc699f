import Foundation
import Testing
@testable import Cyanotype

/// Every LUT error a user can see: which inputs raise it, and its exact message.
@Suite struct LUTErrorTests {
    func cubeError(_ text: String) -> LUTError? {
        do { _ = try LUT(cubeString: text); return nil } catch { return error }
    }
    func threeDLError(_ text: String) -> LUTError? {
        do { _ = try LUT(threeDLData: Data(text.utf8)); return nil } catch { return error }
    }
    func imageError(_ w: Int, _ h: Int, _ layout: LUTImageLayout? = nil) -> LUTError? {
        do { _ = try LUT(image: CIImage(color: .red).cropped(to: CGRect(x: 0, y: 0, width: w, height: h)), layout: layout); return nil } catch { return error }
    }
    let id2 = "0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"

    @Test func cubeErrors() {
        #expect(cubeError(id2) == .missingSize)
        #expect(cubeError("LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n") == .missingEntries(expected: 8, found: 7))
        #expect(cubeError("LUT_3D_SIZE 2\n" + id2 + "1 1 1\n") == .tooManyEntries(expected: 8, found: 9))
        #expect(cubeError("LUT_3D_SIZE 2\n0 0 0\n1 0 x\n") == .invalidNumber(line: 3))
        #expect(cubeError("LUT_3D_SIZE 2\n0 0 0\n1 nan 0\n") == .nonFiniteNumber(line: 3))
        #expect(cubeError("LUT_3D_SIZE 2\n0 0 0\n1 0\n") == .wrongValueCount(line: 3, expected: 3, found: 2))
        #expect(cubeError("LUT_3D_SIZE 300\n") == .sizeAboveLimit(size: 300, limit: 128))
        #expect(cubeError("LUT_3D_SIZE 1\n0 0 0\n") == .sizeBelowMinimum(size: 1, minimum: 2))
        #expect(cubeError("LUT_3D_SIZE two\n") == .invalidNumber(line: 1))
        #expect(cubeError("LUT_3D_SIZE 2\n0 0 0\nLUT_3D_SIZE 2\n") == .misplacedKeyword(keyword: "LUT_3D_SIZE", line: 3))
        #expect(cubeError("LUT_3D_SIZE 2\nDOMAIN_MIN 1 0 0\nDOMAIN_MAX 1 1 1\n" + id2) == .invalidDomain(min: SIMD3(1, 0, 0), max: SIMD3(1, 1, 1)))
        #expect(cubeError("LUT_3D_SIZE 2\nDOMAIN_MIN 0 0\n") == .wrongValueCount(line: 2, expected: 3, found: 2))
        #expect(cubeError("LUT_3D_SIZE 2\n\u{0}") == .notText)
        #expect(cubeError("") == .missingSize)
    }

    @Test func threeDLErrors() {
        #expect(threeDLError("# nothing\n") == .missingBreakpoints)
        #expect(threeDLError("0 512 256\n") == .invalidBreakpoints(line: 1))
        #expect(threeDLError("0 1023\n0 0 0\n") == .missingEntries(expected: 8, found: 1))
        #expect(threeDLError("0 1023\n" + String(repeating: "0 0 70000\n", count: 8)) == .valueOutOfRange(line: 2, value: 70000, maximum: 65535))
        #expect(threeDLError("0 1023\n0 0 0.5\n") == .invalidNumber(line: 2))
        do { _ = try LUT(threeDLData: Data(("0 1023\n" + String(repeating: "0 0 2000\n", count: 8)).utf8), outputBitDepth: 10); Issue.record("no error") } catch {
            #expect(error == .valueOutOfRange(line: 2, value: 2000, maximum: 1023))
        }
    }

    @Test func imageErrors() {
        #expect(imageError(600, 512) == .tileGridNotSquare(width: 600, height: 512))
        #expect(imageError(100, 100) == .imageSizeNotALUT(width: 100, height: 100, layout: "tile-grid"))
        #expect(imageError(100, 100, .hald) == .imageSizeNotALUT(width: 100, height: 100, layout: "Hald CLUT (L^3 x L^3, N = L^2)"))
        #expect(imageError(64, 20, .horizontalStrip) == .imageSizeNotALUT(width: 64, height: 20, layout: "horizontal strip (N^2 x N)"))
        // 4096x4096 is 16x16 tiles of 256: above the default read limit.
        #expect(imageError(4096, 4096) == .sizeAboveLimit(size: 256, limit: 128))
        do { _ = try LUT(image: CIImage(color: .red)); Issue.record("no error") } catch {
            #expect(error.description.hasPrefix("the LUT image could not be read: the image has an infinite or empty extent"))
        }
        do { _ = try LUT(imageData: Data("not a png".utf8)); Issue.record("no error") } catch {
            guard case .unreadableImage = error else { Issue.record("\(error)"); return }
        }
    }

    @Test func modelAndFilterErrors() throws {
        #expect(throws: LUTError.sizeAboveLimit(size: 257, limit: 256)) { try LUT.identity(size: 257) }
        #expect(throws: LUTError.missingEntries(expected: 8, found: 3)) { try LUT(size: 2, entries: [.zero, .zero, .zero]) }
        #expect(throws: LUTError.nonFiniteValue(entry: 1)) { try LUT(size: 2, entries: [.zero, SIMD3(.nan, 0, 0)] + Array(repeating: .zero, count: 6)) }
        #expect(throws: LUTError.unrepresentable(format: "a Hald CLUT", reason: "its size 33 is not a square (Hald level L holds L^2 points per axis)")) {
            try LUT.identity(size: 33).image(layout: .hald)
        }
        let f = CILUTFilter()
        f.inputImage = .red
        #expect(throws: LUTError.noLUT) { try f.makeFilteredImage() }
        #expect(f.outputImage == nil)
        f.lutURL = URL(fileURLWithPath: "/nonexistent/look.cube")
        #expect(f.outputImage == nil)
        do { _ = try f.makeFilteredImage() } catch {
            guard case .unreadableFile(let path, _) = error else { Issue.record("\(error)"); return }
            #expect(path == "/nonexistent/look.cube")
        }
        #expect(throws: LUTError.missingInputImage) { try CILUTFilter(try LUT.identity(size: 2)).makeFilteredImage() }
        #expect(throws: LUTError.unknownFileType(path: "/tmp/x.txt")) { try LUT.identity(size: 2).write(to: URL(fileURLWithPath: "/tmp/x.txt")) }
    }

    @Test func colorCubeWithWrongDataSizeIsATypedError() throws {
        let f = CIFilter(name: "CIColorCube")!
        f.setValue(CIImage.red, forKey: kCIInputImageKey)
        f.setValue(4, forKey: "inputCubeDimension")
        f.setValue(ColorCubeData.identity(dimension: 2), forKey: "inputCubeData")
        #expect(f.outputImage == nil)
        #expect(
            throws: CIFilterError.invalidValue(
                filter: "CIColorCube", key: "inputCubeData",
                reason: "cube data is 128 bytes but a cube of dimension 4 needs 4^3 RGBA float32 entries = 1024 bytes")
        ) {
            try f.makeOutputImage()
        }
    }

    @Test func everyMessageIsPinned() {
        let cases: [(LUTError, String)] = [
            (.sizeBelowMinimum(size: 1, minimum: 2), "LUT size 1 is too small: a LUT needs at least 2 points per axis"),
            (
                .sizeAboveLimit(size: 512, limit: 256),
                "LUT size 512 is above the limit of 256 points per axis (512^3 entries); resample it to 256 or less, or raise the limit where the reader takes one"
            ),
            (.missingEntries(expected: 8, found: 7), "LUT table is incomplete: expected 8 entries, found 7"),
            (.tooManyEntries(expected: 8, found: 9), "LUT table has extra data: expected 8 entries, found 9"),
            (.nonFiniteValue(entry: 5), "LUT entry 5 is NaN or infinite"),
            (.invalidDomain(min: SIMD3(1, 0, 0), max: SIMD3(1, 1, 1)), "LUT domain is empty or not finite: min (1.0, 0.0, 0.0) must be below max (1.0, 1.0, 1.0) in every channel"),
            (
                .tileGridNotSquare(width: 600, height: 512),
                "a 600x512 image is not a tile-grid LUT: tile grids are square (N*sqrt(N) pixels a side: 64x64 for 16^3, 512x512 for 64^3), or ceil(sqrt(N)) tiles wide for other N; for a strip or a Hald image, say which layout"
            ),
            (.imageSizeNotALUT(width: 100, height: 100, layout: "tile-grid"), "a 100x100 image does not hold a LUT in the tile-grid layout"),
            (.unreadableImage(reason: "truncated"), "the LUT image could not be read: truncated"),
            (.unreadableFile(path: "/a.cube", reason: "No such file"), "cannot read LUT file '/a.cube': No such file"),
            (.unwritableFile(path: "/a.cube", reason: "read-only"), "cannot write LUT file '/a.cube': read-only"),
            (.unknownFileType(path: "/a.txt"), "'/a.txt' is not a LUT file this library reads: use .cube, .3dl, or a PNG/JPEG/WebP LUT image"),
            (.notText, "the LUT file is not text (expected a .cube or .3dl text file)"),
            (.invalidNumber(line: 3), "line 3: not a number"),
            (.nonFiniteNumber(line: 4), "line 4: NaN or infinite value"),
            (.wrongValueCount(line: 5, expected: 3, found: 2), "line 5: expected 3 values, found 2"),
            (.missingSize, "the .cube file has no LUT_3D_SIZE (or LUT_1D_SIZE) line before its table"),
            (.misplacedKeyword(keyword: "TITLE", line: 9), "line 9: TITLE is repeated or comes after the table started"),
            (.missingBreakpoints, "the .3dl file has no header line of input breakpoints (e.g. 0 64 128 ... 1023)"),
            (.invalidBreakpoints(line: 2), "line 2: .3dl input breakpoints must be at least 2 increasing non-negative integers"),
            (.valueOutOfRange(line: 7, value: 5000, maximum: 4095), "line 7: value 5000 is outside 0...4095"),
            (
                .unrepresentable(format: ".3dl", reason: "it has a 1D shaper (write a .cube instead)"),
                "the LUT cannot be written as .3dl: it has a 1D shaper (write a .cube instead)"
            ),
            (.cubeDataSize(dimension: 4, expected: 1024, found: 128), "cube data is 128 bytes but a cube of dimension 4 needs 4^3 RGBA float32 entries = 1024 bytes"),
            (.missingInputImage, "no input image: set the filter's inputImage"),
            (.noLUT, "no LUT set: give the filter a LUT image, a LUT, or a LUT file"),
            (.unknownLook(name: "sepia", available: ["warmFilm", "coolFade"]), "no look named 'sepia'; the looks are warmFilm, coolFade"),
        ]
        for (e, message) in cases { #expect(e.description == message) }
    }
}
