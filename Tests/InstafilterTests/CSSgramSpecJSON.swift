// A verbatim copy of ../shared/spec/cssgram_presets.json (CSSgram 0.1.12, MIT), so the
// reference below reads the published data, not the library's Swift transcription of it.
// swift-format-ignore-file
let cssgramPresetsJSON = #"""
{
 "source": {
  "project": "CSSgram by Una Kravets",
  "repository": "una/CSSgram",
  "licence": "MIT",
  "version": "0.1.12",
  "commit": "6f21810aa154db57ce9436fea4d2b0b816346d4d",
  "file": "source/css/cssgram.css"
 },
 "structure": [
  "Markup: <figure class=PRESET><img src=...></figure>. The figure is position:relative;",
  "::before (z-index 2) and ::after (z-index 3) are absolutely positioned boxes covering the",
  "whole figure (top 0, left 0, width 100%, height 100%) painted above the image, ::before first.",
  "The CSS 'filter' list sits on the FIGURE, so it is applied to the composite of image + ::before",
  "+ ::after, i.e. AFTER the overlays are blended, not to the bare image. The filter also makes the",
  "figure a stacking context / isolated group, so the overlays blend only with the image."
 ],
 "evaluation_order": [
  "1. group := source image (opaque, sRGB-encoded values in [0,1])",
  "2. if before: for every pixel, a := before.opacity * alpha_of_background(pixel);",
  "   group := group + a * (B_mode(group, bg_rgb(pixel)) - group)   (W3C compositing; backdrop opaque)",
  "3. same for after, with the result of step 2 as backdrop",
  "4. apply filter functions left to right (each one the W3C filter-function equivalent, in sRGB,",
  "   results clamped to [0,1] after each function)",
  "5. quantise to 8 bits"
 ],
 "gradient_rules": [
  "radial-gradient(circle, ...) = circle, size farthest-corner, centre 50% 50% unless 'at X Y' is given;",
  "the gradient ray length is the distance from the centre to the farthest corner of the box;",
  "stop positions are fractions of that length; first stop without a position = 0, last = 1,",
  "stops without a position in between are spaced evenly between their neighbours;",
  "positions beyond 1 (e.g. 1.5) are allowed: the colour at the box corner is then an interpolation.",
  "linear-gradient(to right|to bottom, A, B): A at the left/top edge, B at the right/bottom edge.",
  "Colour stops interpolate in premultiplied-alpha sRGB (CSS Images 3), so 'transparent' (rgba 0,0,0,0)",
  "fades alpha only, without darkening the colour."
 ],
 "filter_functions_note": "See specs/filter_effects.json for the matrices; CSS filter functions operate in sRGB (gamma-encoded) values.",
 "blend_modes_note": "See specs/filter_effects.json for B_mode(Cb, Cs); mix-blend-mode operates on sRGB-encoded values in browsers.",
 "presets": [
  {
   "name": "1977",
   "css_class": "_1977",
   "filter": [
    {
     "fn": "contrast",
     "amount": 1.1
    },
    {
     "fn": "brightness",
     "amount": 1.1
    },
    {
     "fn": "saturate",
     "amount": 1.3
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      243,
      106,
      188,
      0.3
     ]
    },
    "mix_blend_mode": "screen",
    "opacity": 1.0
   },
   "css": {
    "filter": "contrast(1.1) brightness(1.1) saturate(1.3)",
    "before": null,
    "after": {
     "background": "rgba(243, 106, 188, 0.3)",
     "mix-blend-mode": "screen",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "aden",
   "css_class": "aden",
   "filter": [
    {
     "fn": "hue-rotate",
     "amount": -20
    },
    {
     "fn": "contrast",
     "amount": 0.9
    },
    {
     "fn": "saturate",
     "amount": 0.85
    },
    {
     "fn": "brightness",
     "amount": 1.2
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "linear-gradient",
     "direction": "to right",
     "stops": [
      {
       "rgba": [
        66,
        10,
        14,
        0.2
       ],
       "pos": null
      },
      {
       "rgba": [
        0,
        0,
        0,
        0.0
       ],
       "pos": null
      }
     ]
    },
    "mix_blend_mode": "darken",
    "opacity": 1.0
   },
   "css": {
    "filter": "hue-rotate(-20deg) contrast(0.9) saturate(0.85) brightness(1.2)",
    "before": null,
    "after": {
     "background": "linear-gradient(to right, rgba(66, 10, 14, 0.2), rgba(0, 0, 0, 0.0))",
     "mix-blend-mode": "darken",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "brannan",
   "css_class": "brannan",
   "filter": [
    {
     "fn": "sepia",
     "amount": 0.5
    },
    {
     "fn": "contrast",
     "amount": 1.4
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      161,
      44,
      199,
      0.31
     ]
    },
    "mix_blend_mode": "lighten",
    "opacity": 1.0
   },
   "css": {
    "filter": "sepia(0.5) contrast(1.4)",
    "before": null,
    "after": {
     "background": "rgba(161, 44, 199, 0.31)",
     "mix-blend-mode": "lighten",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "brooklyn",
   "css_class": "brooklyn",
   "filter": [
    {
     "fn": "contrast",
     "amount": 0.9
    },
    {
     "fn": "brightness",
     "amount": 1.1
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        168,
        223,
        193,
        0.4
       ],
       "pos": 0.7
      },
      {
       "rgba": [
        196,
        183,
        200,
        1.0
       ],
       "pos": null
      }
     ]
    },
    "mix_blend_mode": "overlay",
    "opacity": 1.0
   },
   "css": {
    "filter": "contrast(0.9) brightness(1.1)",
    "before": null,
    "after": {
     "background": "radial-gradient(circle, rgba(168, 223, 193, 0.4) 70.0%, rgba(196, 183, 200, 1.0))",
     "mix-blend-mode": "overlay",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "clarendon",
   "css_class": "clarendon",
   "filter": [
    {
     "fn": "contrast",
     "amount": 1.2
    },
    {
     "fn": "saturate",
     "amount": 1.35
    }
   ],
   "before": {
    "background": {
     "type": "color",
     "rgba": [
      127,
      187,
      227,
      0.2
     ]
    },
    "mix_blend_mode": "overlay",
    "opacity": 1.0
   },
   "after": null,
   "css": {
    "filter": "contrast(1.2) saturate(1.35)",
    "before": {
     "background": "rgba(127, 187, 227, 0.2)",
     "mix-blend-mode": "overlay",
     "opacity": 1.0
    },
    "after": null
   }
  },
  {
   "name": "earlybird",
   "css_class": "earlybird",
   "filter": [
    {
     "fn": "contrast",
     "amount": 0.9
    },
    {
     "fn": "sepia",
     "amount": 0.2
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        208,
        186,
        142,
        1.0
       ],
       "pos": 0.2
      },
      {
       "rgba": [
        54,
        3,
        9,
        1.0
       ],
       "pos": 0.85
      },
      {
       "rgba": [
        29,
        2,
        16,
        1.0
       ],
       "pos": 1.0
      }
     ]
    },
    "mix_blend_mode": "overlay",
    "opacity": 1.0
   },
   "css": {
    "filter": "contrast(0.9) sepia(0.2)",
    "before": null,
    "after": {
     "background": "radial-gradient(circle, rgba(208, 186, 142, 1.0) 20.0%, rgba(54, 3, 9, 1.0) 85.0%, rgba(29, 2, 16, 1.0) 100.0%)",
     "mix-blend-mode": "overlay",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "gingham",
   "css_class": "gingham",
   "filter": [
    {
     "fn": "brightness",
     "amount": 1.05
    },
    {
     "fn": "hue-rotate",
     "amount": -10
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      230,
      230,
      250,
      1.0
     ]
    },
    "mix_blend_mode": "soft-light",
    "opacity": 1.0
   },
   "note": "after background is the CSS named colour lavender = #e6e6fa",
   "css": {
    "filter": "brightness(1.05) hue-rotate(-10deg)",
    "before": null,
    "after": {
     "background": "rgba(230, 230, 250, 1.0)",
     "mix-blend-mode": "soft-light",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "hudson",
   "css_class": "hudson",
   "filter": [
    {
     "fn": "brightness",
     "amount": 1.2
    },
    {
     "fn": "contrast",
     "amount": 0.9
    },
    {
     "fn": "saturate",
     "amount": 1.1
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        166,
        177,
        255,
        1.0
       ],
       "pos": 0.5
      },
      {
       "rgba": [
        52,
        33,
        52,
        1.0
       ],
       "pos": null
      }
     ]
    },
    "mix_blend_mode": "multiply",
    "opacity": 0.5
   },
   "css": {
    "filter": "brightness(1.2) contrast(0.9) saturate(1.1)",
    "before": null,
    "after": {
     "background": "radial-gradient(circle, rgba(166, 177, 255, 1.0) 50.0%, rgba(52, 33, 52, 1.0))",
     "mix-blend-mode": "multiply",
     "opacity": 0.5
    }
   }
  },
  {
   "name": "inkwell",
   "css_class": "inkwell",
   "filter": [
    {
     "fn": "sepia",
     "amount": 0.3
    },
    {
     "fn": "contrast",
     "amount": 1.1
    },
    {
     "fn": "brightness",
     "amount": 1.1
    },
    {
     "fn": "grayscale",
     "amount": 1
    }
   ],
   "before": null,
   "after": null,
   "css": {
    "filter": "sepia(0.3) contrast(1.1) brightness(1.1) grayscale(1)",
    "before": null,
    "after": null
   }
  },
  {
   "name": "kelvin",
   "css_class": "kelvin",
   "filter": [],
   "before": {
    "background": {
     "type": "color",
     "rgba": [
      56,
      44,
      52,
      1.0
     ]
    },
    "mix_blend_mode": "color-dodge",
    "opacity": 1.0
   },
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      183,
      125,
      33,
      1.0
     ]
    },
    "mix_blend_mode": "overlay",
    "opacity": 1.0
   },
   "css": {
    "filter": "none",
    "before": {
     "background": "rgba(56, 44, 52, 1.0)",
     "mix-blend-mode": "color-dodge",
     "opacity": 1.0
    },
    "after": {
     "background": "rgba(183, 125, 33, 1.0)",
     "mix-blend-mode": "overlay",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "lark",
   "css_class": "lark",
   "filter": [
    {
     "fn": "contrast",
     "amount": 0.9
    }
   ],
   "before": {
    "background": {
     "type": "color",
     "rgba": [
      34,
      37,
      63,
      1.0
     ]
    },
    "mix_blend_mode": "color-dodge",
    "opacity": 1.0
   },
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      242,
      242,
      242,
      0.8
     ]
    },
    "mix_blend_mode": "darken",
    "opacity": 1.0
   },
   "css": {
    "filter": "contrast(0.9)",
    "before": {
     "background": "rgba(34, 37, 63, 1.0)",
     "mix-blend-mode": "color-dodge",
     "opacity": 1.0
    },
    "after": {
     "background": "rgba(242, 242, 242, 0.8)",
     "mix-blend-mode": "darken",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "lofi",
   "css_class": "lofi",
   "filter": [
    {
     "fn": "saturate",
     "amount": 1.1
    },
    {
     "fn": "contrast",
     "amount": 1.5
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        0,
        0,
        0,
        0.0
       ],
       "pos": 0.7
      },
      {
       "rgba": [
        34,
        34,
        34,
        1.0
       ],
       "pos": 1.5
      }
     ]
    },
    "mix_blend_mode": "multiply",
    "opacity": 1.0
   },
   "css": {
    "filter": "saturate(1.1) contrast(1.5)",
    "before": null,
    "after": {
     "background": "radial-gradient(circle, rgba(0, 0, 0, 0.0) 70.0%, rgba(34, 34, 34, 1.0) 150.0%)",
     "mix-blend-mode": "multiply",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "maven",
   "css_class": "maven",
   "filter": [
    {
     "fn": "sepia",
     "amount": 0.25
    },
    {
     "fn": "brightness",
     "amount": 0.95
    },
    {
     "fn": "contrast",
     "amount": 0.95
    },
    {
     "fn": "saturate",
     "amount": 1.5
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      3,
      230,
      26,
      0.2
     ]
    },
    "mix_blend_mode": "hue",
    "opacity": 1.0
   },
   "css": {
    "filter": "sepia(0.25) brightness(0.95) contrast(0.95) saturate(1.5)",
    "before": null,
    "after": {
     "background": "rgba(3, 230, 26, 0.2)",
     "mix-blend-mode": "hue",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "mayfair",
   "css_class": "mayfair",
   "filter": [
    {
     "fn": "contrast",
     "amount": 1.1
    },
    {
     "fn": "saturate",
     "amount": 1.1
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.4,
      0.4
     ],
     "stops": [
      {
       "rgba": [
        255,
        255,
        255,
        0.8
       ],
       "pos": null
      },
      {
       "rgba": [
        255,
        200,
        200,
        0.6
       ],
       "pos": null
      },
      {
       "rgba": [
        17,
        17,
        17,
        1.0
       ],
       "pos": 0.6
      }
     ]
    },
    "mix_blend_mode": "overlay",
    "opacity": 0.4
   },
   "css": {
    "filter": "contrast(1.1) saturate(1.1)",
    "before": null,
    "after": {
     "background": "radial-gradient(circle at 40.0% 40.0%, rgba(255, 255, 255, 0.8), rgba(255, 200, 200, 0.6), rgba(17, 17, 17, 1.0) 60.0%)",
     "mix-blend-mode": "overlay",
     "opacity": 0.4
    }
   }
  },
  {
   "name": "moon",
   "css_class": "moon",
   "filter": [
    {
     "fn": "grayscale",
     "amount": 1
    },
    {
     "fn": "contrast",
     "amount": 1.1
    },
    {
     "fn": "brightness",
     "amount": 1.1
    }
   ],
   "before": {
    "background": {
     "type": "color",
     "rgba": [
      160,
      160,
      160,
      1.0
     ]
    },
    "mix_blend_mode": "soft-light",
    "opacity": 1.0
   },
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      56,
      56,
      56,
      1.0
     ]
    },
    "mix_blend_mode": "lighten",
    "opacity": 1.0
   },
   "css": {
    "filter": "grayscale(1) contrast(1.1) brightness(1.1)",
    "before": {
     "background": "rgba(160, 160, 160, 1.0)",
     "mix-blend-mode": "soft-light",
     "opacity": 1.0
    },
    "after": {
     "background": "rgba(56, 56, 56, 1.0)",
     "mix-blend-mode": "lighten",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "nashville",
   "css_class": "nashville",
   "filter": [
    {
     "fn": "sepia",
     "amount": 0.2
    },
    {
     "fn": "contrast",
     "amount": 1.2
    },
    {
     "fn": "brightness",
     "amount": 1.05
    },
    {
     "fn": "saturate",
     "amount": 1.2
    }
   ],
   "before": {
    "background": {
     "type": "color",
     "rgba": [
      247,
      176,
      153,
      0.56
     ]
    },
    "mix_blend_mode": "darken",
    "opacity": 1.0
   },
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      0,
      70,
      150,
      0.4
     ]
    },
    "mix_blend_mode": "lighten",
    "opacity": 1.0
   },
   "css": {
    "filter": "sepia(0.2) contrast(1.2) brightness(1.05) saturate(1.2)",
    "before": {
     "background": "rgba(247, 176, 153, 0.56)",
     "mix-blend-mode": "darken",
     "opacity": 1.0
    },
    "after": {
     "background": "rgba(0, 70, 150, 0.4)",
     "mix-blend-mode": "lighten",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "perpetua",
   "css_class": "perpetua",
   "filter": [],
   "before": null,
   "after": {
    "background": {
     "type": "linear-gradient",
     "direction": "to bottom",
     "stops": [
      {
       "rgba": [
        0,
        91,
        154,
        1.0
       ],
       "pos": null
      },
      {
       "rgba": [
        230,
        193,
        61,
        1.0
       ],
       "pos": null
      }
     ]
    },
    "mix_blend_mode": "soft-light",
    "opacity": 0.5
   },
   "css": {
    "filter": "none",
    "before": null,
    "after": {
     "background": "linear-gradient(to bottom, rgba(0, 91, 154, 1.0), rgba(230, 193, 61, 1.0))",
     "mix-blend-mode": "soft-light",
     "opacity": 0.5
    }
   }
  },
  {
   "name": "reyes",
   "css_class": "reyes",
   "filter": [
    {
     "fn": "sepia",
     "amount": 0.22
    },
    {
     "fn": "brightness",
     "amount": 1.1
    },
    {
     "fn": "contrast",
     "amount": 0.85
    },
    {
     "fn": "saturate",
     "amount": 0.75
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      239,
      205,
      173,
      1.0
     ]
    },
    "mix_blend_mode": "soft-light",
    "opacity": 0.5
   },
   "css": {
    "filter": "sepia(0.22) brightness(1.1) contrast(0.85) saturate(0.75)",
    "before": null,
    "after": {
     "background": "rgba(239, 205, 173, 1.0)",
     "mix-blend-mode": "soft-light",
     "opacity": 0.5
    }
   }
  },
  {
   "name": "rise",
   "css_class": "rise",
   "filter": [
    {
     "fn": "brightness",
     "amount": 1.05
    },
    {
     "fn": "sepia",
     "amount": 0.2
    },
    {
     "fn": "contrast",
     "amount": 0.9
    },
    {
     "fn": "saturate",
     "amount": 0.9
    }
   ],
   "before": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        236,
        205,
        169,
        0.15
       ],
       "pos": 0.55
      },
      {
       "rgba": [
        50,
        30,
        7,
        0.4
       ],
       "pos": null
      }
     ]
    },
    "mix_blend_mode": "multiply",
    "opacity": 1.0
   },
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        232,
        197,
        152,
        0.8
       ],
       "pos": null
      },
      {
       "rgba": [
        0,
        0,
        0,
        0.0
       ],
       "pos": 0.9
      }
     ]
    },
    "mix_blend_mode": "overlay",
    "opacity": 0.6
   },
   "css": {
    "filter": "brightness(1.05) sepia(0.2) contrast(0.9) saturate(0.9)",
    "before": {
     "background": "radial-gradient(circle, rgba(236, 205, 169, 0.15) 55.0%, rgba(50, 30, 7, 0.4))",
     "mix-blend-mode": "multiply",
     "opacity": 1.0
    },
    "after": {
     "background": "radial-gradient(circle, rgba(232, 197, 152, 0.8), rgba(0, 0, 0, 0.0) 90.0%)",
     "mix-blend-mode": "overlay",
     "opacity": 0.6
    }
   }
  },
  {
   "name": "slumber",
   "css_class": "slumber",
   "filter": [
    {
     "fn": "saturate",
     "amount": 0.66
    },
    {
     "fn": "brightness",
     "amount": 1.05
    }
   ],
   "before": {
    "background": {
     "type": "color",
     "rgba": [
      69,
      41,
      12,
      0.4
     ]
    },
    "mix_blend_mode": "lighten",
    "opacity": 1.0
   },
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      125,
      105,
      24,
      0.5
     ]
    },
    "mix_blend_mode": "soft-light",
    "opacity": 1.0
   },
   "css": {
    "filter": "saturate(0.66) brightness(1.05)",
    "before": {
     "background": "rgba(69, 41, 12, 0.4)",
     "mix-blend-mode": "lighten",
     "opacity": 1.0
    },
    "after": {
     "background": "rgba(125, 105, 24, 0.5)",
     "mix-blend-mode": "soft-light",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "stinson",
   "css_class": "stinson",
   "filter": [
    {
     "fn": "contrast",
     "amount": 0.75
    },
    {
     "fn": "saturate",
     "amount": 0.85
    },
    {
     "fn": "brightness",
     "amount": 1.15
    }
   ],
   "before": {
    "background": {
     "type": "color",
     "rgba": [
      240,
      149,
      128,
      0.2
     ]
    },
    "mix_blend_mode": "soft-light",
    "opacity": 1.0
   },
   "after": null,
   "css": {
    "filter": "contrast(0.75) saturate(0.85) brightness(1.15)",
    "before": {
     "background": "rgba(240, 149, 128, 0.2)",
     "mix-blend-mode": "soft-light",
     "opacity": 1.0
    },
    "after": null
   }
  },
  {
   "name": "toaster",
   "css_class": "toaster",
   "filter": [
    {
     "fn": "contrast",
     "amount": 1.5
    },
    {
     "fn": "brightness",
     "amount": 0.9
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        128,
        78,
        15,
        1.0
       ],
       "pos": null
      },
      {
       "rgba": [
        59,
        0,
        59,
        1.0
       ],
       "pos": null
      }
     ]
    },
    "mix_blend_mode": "screen",
    "opacity": 1.0
   },
   "css": {
    "filter": "contrast(1.5) brightness(0.9)",
    "before": null,
    "after": {
     "background": "radial-gradient(circle, rgba(128, 78, 15, 1.0), rgba(59, 0, 59, 1.0))",
     "mix-blend-mode": "screen",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "valencia",
   "css_class": "valencia",
   "filter": [
    {
     "fn": "contrast",
     "amount": 1.08
    },
    {
     "fn": "brightness",
     "amount": 1.08
    },
    {
     "fn": "sepia",
     "amount": 0.08
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      58,
      3,
      57,
      1.0
     ]
    },
    "mix_blend_mode": "exclusion",
    "opacity": 0.5
   },
   "css": {
    "filter": "contrast(1.08) brightness(1.08) sepia(0.08)",
    "before": null,
    "after": {
     "background": "rgba(58, 3, 57, 1.0)",
     "mix-blend-mode": "exclusion",
     "opacity": 0.5
    }
   }
  },
  {
   "name": "walden",
   "css_class": "walden",
   "filter": [
    {
     "fn": "brightness",
     "amount": 1.1
    },
    {
     "fn": "hue-rotate",
     "amount": -10
    },
    {
     "fn": "sepia",
     "amount": 0.3
    },
    {
     "fn": "saturate",
     "amount": 1.6
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      0,
      68,
      204,
      1.0
     ]
    },
    "mix_blend_mode": "screen",
    "opacity": 0.3
   },
   "css": {
    "filter": "brightness(1.1) hue-rotate(-10deg) sepia(0.3) saturate(1.6)",
    "before": null,
    "after": {
     "background": "rgba(0, 68, 204, 1.0)",
     "mix-blend-mode": "screen",
     "opacity": 0.3
    }
   }
  },
  {
   "name": "willow",
   "css_class": "willow",
   "filter": [
    {
     "fn": "grayscale",
     "amount": 0.5
    },
    {
     "fn": "contrast",
     "amount": 0.95
    },
    {
     "fn": "brightness",
     "amount": 0.9
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "color",
     "rgba": [
      216,
      205,
      203,
      1.0
     ]
    },
    "mix_blend_mode": "color",
    "opacity": 1.0
   },
   "note": "CSSgram declares willow::before { background-color: radial-gradient(40%, circle, #d4a9af 55%, black 150%); mix-blend-mode: overlay } but a gradient is not a valid background-color, so browsers drop that declaration: the ::before box is transparent and has no visible effect. The reference renders reproduce that (before = null here).",
   "css": {
    "filter": "grayscale(0.5) contrast(0.95) brightness(0.9)",
    "before": null,
    "after": {
     "background": "rgba(216, 205, 203, 1.0)",
     "mix-blend-mode": "color",
     "opacity": 1.0
    }
   }
  },
  {
   "name": "xpro2",
   "css_class": "xpro2",
   "filter": [
    {
     "fn": "sepia",
     "amount": 0.3
    }
   ],
   "before": null,
   "after": {
    "background": {
     "type": "radial-gradient",
     "shape": "circle",
     "size": "farthest-corner",
     "at": [
      0.5,
      0.5
     ],
     "stops": [
      {
       "rgba": [
        230,
        231,
        224,
        1.0
       ],
       "pos": 0.4
      },
      {
       "rgba": [
        43,
        42,
        161,
        0.6
       ],
       "pos": 1.1
      }
     ]
    },
    "mix_blend_mode": "color-burn",
    "opacity": 1.0
   },
   "css": {
    "filter": "sepia(0.3)",
    "before": null,
    "after": {
     "background": "radial-gradient(circle, rgba(230, 231, 224, 1.0) 40.0%, rgba(43, 42, 161, 0.6) 110.0%)",
     "mix-blend-mode": "color-burn",
     "opacity": 1.0
    }
   }
  }
 ]
}

"""#
