import Foundation

/// Tiny files written by other encoders (ImageMagick 6, libjpeg-turbo, libpng), embedded as
/// base64 so the test target needs no resources. Each entry notes the command that made it.
enum Fixtures {
    /// `convert -size 16x8 xc:"rgb(255,0,0)" -colorspace CMYK -quality 95 cmyk.jpg  (Adobe APP14, inverted CMYK)`
    static let cmykJPEG: Data = Data(
        base64Encoded:
            "/9j/7gAOQWRvYmUAZAAAAAAC/9sAQwACAQEBAQECAQEBAgICAgIEAwICAgIFBAQDBAYFBgYGBQYGBgcJCAYHCQcGBggLCAkKCgoKCgYICwwLCgwJCgoK/9sAQwECAgICAgIFAwMFCgcGBwoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoK/8AAFAgACAAQBAERAAIRAQMRAQQRAP/EABYAAQEBAAAAAAAAAAAAAAAAAAAICf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/xAAWAQEBAQAAAAAAAAAAAAAAAAAACAr/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADgQBAAIRAxEEAAA/ALMVYz/t/AB//9k="
    )!
    /// `convert -size 16x8 gradient:white-black -colorspace Gray -quality 95 gray.jpg`
    static let grayJPEG: Data = Data(
        base64Encoded:
            "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoKCgoKBggLDAsKDAkKCgr/wAALCAAIABABAREA/8QAFQABAQAAAAAAAAAAAAAAAAAAAAL/xAAXEAADAQAAAAAAAAAAAAAAAAAAGmek/9oACAEBAAA/AJaZouoNM0XUf//Z"
    )!
    /// `convert -size 9x7 xc:black -channel R -fx "i/8" -channel G -fx "j/6" -channel B -fx "((i*7+j*3)%5)/4" +channel -depth 16 -define png:color-type=2 -strip plain16.png`
    static let plain16PNG: Data = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAkAAAAHEAIAAAAFaSx0AAAAZUlEQVQY053QsQ3CQBSD4S/SDUKdW+LYhFGOSeiTIW6UjGKqiIJEQbT+7Wc9A27oGpIHmo6RV2CEbgtJQlOY1xG4T2DajbtyRAt1eZ7is3Chrle3v2lhPmi7Chfq0v3+1aftj0ne1D5BkU95qR8AAAAASUVORK5CYII="
    )!
    /// `convert plain16.png -interlace PNG -strip interlaced.png`
    static let interlacedPNG: Data = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAkAAAAHEAIAAAFybhziAAAAm0lEQVQY04XPsW0DMQxG4Y+A9sjVWcLyDlbqbHLaJL0yxNmTZBSm0F18QYqwIAi+n3gSIJNKx5bBGF1HtyZbqsjckq4wxjUc4daqivueuuQxP6IwxppQA+bd/bAu6N5RfSR8JZmF1i4Jwk9FlOmb92dcaC3i+M0TB6+fWy64xvQtWPfNSz7nMy287aLZ52umoZ/2v2mh3f4L/aXfMBBBV2PdagsAAAAASUVORK5CYII="
    )!
}
