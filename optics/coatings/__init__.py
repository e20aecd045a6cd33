"""optics.coatings: Fresnel amplitude coefficients of bare and coated interfaces."""
