import Foundation
import Testing
@testable import Cyanotype

private let white = CIColor(red: 1, green: 1, blue: 1)

private func striationRef(_ theta: Double, _ time: Double) -> Double {
    let t = 2 * Double.pi * time
    let v = sin(7 * theta + t) + sin(13 * theta - 2 * t + 1.3) + sin(29 * theta + 3 * t + 2.1)
    return min(max(0.5 + v / 6, 0), 1)
}

@Suite struct GeneratorLightTests {
    @Test func starShine() throws {
        let f = CIFilter.starShineGenerator()
        f.center = CGPoint(x: 100, y: 100); f.color = white
        f.radius = 20; f.crossScale = 12; f.crossAngle = 0.5; f.crossOpacity = -2; f.crossWidth = 2; f.epsilon = -3
        let img = try f.makeOutputImage()
        #expect(img.extent.isInfinite)
        for (x, y) in [(100, 100), (110, 103), (140, 100), (100 + 40, 100 + 22), (10, 190), (130, 60)] {
            let dx = Double(x) + 0.5 - 100, dy = Double(y) + 0.5 - 100, r = hypot(dx, dy)
            let u = dx * cos(0.5) + dy * sin(0.5), v = -dx * sin(0.5) + dy * cos(0.5)
            let amp = pow(10, -2.0 / 4), len = 20.0 * 12 / 4
            var i = exp(-4 * (r / 20) * (r / 20)) + pow(10, -3) * 20 / (r + 20)
            i += amp * exp(-abs(v) / 2) * exp(-abs(u) / len) + amp * exp(-abs(u) / 2) * exp(-abs(v) / len)
            let got = try renderFloat(img, CGRect(x: x, y: y, width: 1, height: 1))[0][3]
            #expect(abs(Double(got) - min(i, 1)) < 1e-4, "at \(x),\(y)")
        }
    }

    @Test func sunbeams() throws {
        let f = CIFilter.sunbeamsGenerator()
        f.center = CGPoint(x: 50, y: 50); f.color = white
        f.sunRadius = 10; f.maxStriationRadius = 2; f.striationStrength = 0.5; f.striationContrast = 1.5; f.time = 0.25
        let img = try f.makeOutputImage()
        for (x, y) in [(50, 50), (55, 52), (63, 50), (70, 60), (50, 79), (20, 50), (90, 90)] {
            let dx = Double(x) + 0.5 - 50, dy = Double(y) + 0.5 - 50, r = hypot(dx, dy)
            let disc = min(max(10.5 - r, 0), 1)
            let fall = min(max(1 - (r - 10) / 20, 0), 1)
            let expected = min(disc + 0.5 * pow(striationRef(atan2(dy, dx), 0.25), 1.5) * fall * fall, 1)
            let got = try renderFloat(img, CGRect(x: x, y: y, width: 1, height: 1))[0][3]
            #expect(abs(Double(got) - expected) < 1e-4, "at \(x),\(y)")
        }
    }

    @Test func lenticularHalo() throws {
        let f = CIFilter.lenticularHaloGenerator()
        f.center = CGPoint(x: 0, y: 0); f.color = white
        f.haloRadius = 40; f.haloWidth = 20; f.haloOverlap = 0.5; f.striationStrength = 0; f.striationContrast = 1; f.time = 0
        let img = try f.makeOutputImage()
        // Without striations: Gaussian-like rings; red outside, blue inside by (1 - overlap) * width / 2 = 5.
        let spread = 5.0
        for (x, y) in [(40, 0), (45, 0), (35, 0), (0, -41), (28, 28), (0, 0), (80, 0)] {
            let r = hypot(Double(x) + 0.5, Double(y) + 0.5)
            func ring(_ rr: Double) -> Double { let t = (r - rr) / 10; return exp(-4 * t * t) }
            let k = [ring(40 + spread), ring(40), ring(40 - spread)]
            let a = k.max()!
            let got = try renderFloat(img, CGRect(x: x, y: y, width: 1, height: 1))[0]
            #expect(abs(Double(got[3]) - a) < 1e-4, "alpha at \(x),\(y)")
            if a > 1e-3 { for c in 0..<3 { #expect(abs(Double(got[c]) - k[c] / a) < 1e-3, "channel \(c) at \(x),\(y)") } }
        }
        // Striations vary with angle and move with time.
        f.striationStrength = 1
        let a = try renderFloat(try f.makeOutputImage(), CGRect(x: -45, y: -45, width: 90, height: 90))
        f.time = 0.5
        let b = try renderFloat(try f.makeOutputImage(), CGRect(x: -45, y: -45, width: 90, height: 90))
        #expect(a != b)
    }
}
