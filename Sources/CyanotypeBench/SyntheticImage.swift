import Foundation
import Cyanotype

/// A deterministic photo-like test image: smooth gradients and soft waves plus grain, opaque,
/// 8-bit sRGB RGBA, top row first. The same size always gives the same bytes.
struct SyntheticImage {
    let width: Int
    let height: Int
    var megapixels: Double { Double(width * height) / 1e6 }
    var rowBytes8: Int { width * 4 }
    var extent: CGRect { CGRect(x: 0, y: 0, width: width, height: height) }

    func rgba8() -> Data {
        let w = width, h = height
        var data = Data(count: w * h * 4)
        let waveX = (0..<w).map { Float(sin(Double($0) / Double(w) * 9.0)) }
        let waveY = (0..<h).map { Float(cos(Double($0) / Double(h) * 7.0)) }
        data.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt8.self).baseAddress!
            waveX.withUnsafeBufferPointer { wx in
                waveY.withUnsafeBufferPointer { wy in
                    var seed: UInt32 = 0x9E37_79B9
                    for y in 0..<h {
                        let fy = Float(y) / Float(h), sy = wy[y]
                        let row = p + y * w * 4
                        for x in 0..<w {
                            seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5
                            let n = Float(Int32(seed & 15) - 8)
                            let fx = Float(x) / Float(w), sx = wx[x]
                            let r = 30 + 180 * fx + 25 * sx * sy + n
                            let g = 40 + 150 * fy + 30 * sx + n
                            let b = 70 + 60 * sx * sy + 90 * fx * fy + n
                            row[4 * x] = UInt8(min(max(r, 0), 255))
                            row[4 * x + 1] = UInt8(min(max(g, 0), 255))
                            row[4 * x + 2] = UInt8(min(max(b, 0), 255))
                            row[4 * x + 3] = 255
                        }
                    }
                }
            }
        }
        return data
    }

    /// The same pixels as premultiplied linear-sRGB Float32 RGBA (opaque, so premultiplied
    /// equals straight), 16 bytes per pixel.
    func rgbaLinearFloat(from rgba8: Data) -> Data {
        let table = (0..<256).map { i -> Float in
            let v = Float(i) / 255
            return v <= 0.04045 ? v / 12.92 : powf((v + 0.055) / 1.055, 2.4)
        }
        var out = Data(count: width * height * 16)
        out.withUnsafeMutableBytes { o in
            rgba8.withUnsafeBytes { i in
                let dst = o.bindMemory(to: SIMD4<Float>.self), src = i.bindMemory(to: UInt8.self)
                table.withUnsafeBufferPointer { t in
                    for k in 0..<dst.count {
                        dst[k] = SIMD4(t[Int(src[4 * k])], t[Int(src[4 * k + 1])], t[Int(src[4 * k + 2])], Float(src[4 * k + 3]) / 255)
                    }
                }
            }
        }
        return out
    }

    func image8(_ data: Data) -> CIImage {
        CIImage(bitmapData: data, bytesPerRow: rowBytes8, size: extent.size, format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB))
    }
}

/// The five per-pixel filters of the fusion workloads (and the single-filter baseline).
enum BenchFilters {
    static func colorMatrix(_ i: CIImage) -> CIImage {
        i.applyingFilter(
            "CIColorMatrix",
            parameters: [
                "inputRVector": CIVector(x: 0.9, y: 0.05, z: 0.05, w: 0), "inputGVector": CIVector(x: 0.05, y: 0.9, z: 0.05, w: 0),
                "inputBVector": CIVector(x: 0.05, y: 0.05, z: 0.9, w: 0), "inputAVector": CIVector(x: 0, y: 0, z: 0, w: 1),
                "inputBiasVector": CIVector(x: 0.01, y: 0.01, z: 0.01, w: 0),
            ])
    }
    static func grade(_ i: CIImage) -> CIImage {
        i.applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.3])
            .applyingFilter("CIColorControls", parameters: [kCIInputSaturationKey: 1.1, kCIInputBrightnessKey: 0.02, kCIInputContrastKey: 1.05])
            .applyingFilter("CIHueAdjust", parameters: [kCIInputAngleKey: 0.1])
            .applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.3])
            .applyingFilter("CIVignette", parameters: [kCIInputIntensityKey: 0.5, kCIInputRadiusKey: 1.2])
    }
    static func five(_ i: CIImage) -> CIImage {
        colorMatrix(i)
            .applyingFilter("CIExposureAdjust", parameters: [kCIInputEVKey: 0.3])
            .applyingFilter("CIVibrance", parameters: [kCIInputAmountKey: 0.4])
            .applyingFilter("CIGammaAdjust", parameters: ["inputPower": 0.9])
            .applyingFilter("CIColorControls", parameters: [kCIInputSaturationKey: 1.1, kCIInputBrightnessKey: 0.02, kCIInputContrastKey: 1.05])
    }
}
