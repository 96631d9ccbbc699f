// A barcode as a grid of modules, and the generator stage that draws it one pixel per
// module: black modules on white, opaque, rows of the matrix top-down as Core Image
// shows them (row 0 at the top of the extent, which starts at (0, 0)).

/// A rectangular grid of dark (`true`) and light modules, row 0 at the top.
struct BarcodeMatrix: Sendable, Equatable {
    let width: Int
    let height: Int
    private(set) var modules: [Bool]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        modules = [Bool](repeating: false, count: width * height)
    }

    subscript(x: Int, y: Int) -> Bool {
        get { modules[y * width + x] }
        set { modules[y * width + x] = newValue }
    }

    /// The matrix inside a light border of `quiet` modules on each side.
    func padded(_ quiet: Int) -> BarcodeMatrix {
        var m = BarcodeMatrix(width: width + 2 * quiet, height: height + 2 * quiet)
        for y in 0..<height { for x in 0..<width where self[x, y] { m[x + quiet, y + quiet] = true } }
        return m
    }

    /// One text line per row, `#` dark and `.` light: for tests and debugging.
    var text: String {
        (0..<height).map { y in String((0..<width).map { self[$0, y] ? "#" : "." }) }.joined(separator: "\n")
    }

    /// The matrix as an image, one pixel per module, extent (0, 0, width, height).
    func image() -> CIImage {
        CIImage(
            node: GeneratorNode(
                stage: ModuleStage(self, dark: SIMD4(0, 0, 0, 1), light: SIMD4(1, 1, 1, 1)),
                extent: CGRect(x: 0, y: 0, width: width, height: height)))
    }
}

/// Draws a `BarcodeMatrix` one pixel per module; clear outside the matrix.
struct ModuleStage: GeneratorStage {
    let width: Int, height: Int
    let bits: [UInt8]
    let dark: SIMD4<Float>, light: SIMD4<Float>

    init(_ m: BarcodeMatrix, dark: SIMD4<Float>, light: SIMD4<Float>) {
        width = m.width
        height = m.height
        bits = m.modules.map { $0 ? 1 : 0 }
        self.dark = dark
        self.light = light
    }

    func generate(_ out: UnsafeMutablePointer<SIMD4<Float>>, count: Int, x: Int, y: Int) {
        let row = height - 1 - y  // Core Image's y grows upwards
        guard row >= 0, row < height else { out.update(repeating: .zero, count: count); return }
        bits.withUnsafeBufferPointer { b in
            let base = row * width
            for i in 0..<count {
                let c = x + i
                out[i] = c < 0 || c >= width ? .zero : (b[base + c] != 0 ? dark : light)
            }
        }
    }
    var label: String { "barcode \(width)x\(height) modules" }
}
