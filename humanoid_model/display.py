"""Display conventions shared by the packages that draw contacts: the simulator's /contacts
markers (`humanoid_sim.runtime.markers`) and the web viewer's replay (`humanoid_viewer.app`).

They live here because the simulator and the viewer are sibling packages that must not import
each other; both import `humanoid_model`. Display only: no physics depends on these numbers.
"""

FORCE_SCALE = 3e-3
"""[m/N] length of a drawn contact-force arrow per newton (chosen). Contacts are drawn one
arrow per contact point, and a standing HRP-2 carries about 70 N per sole corner: 3 mm/N makes
that a 21 cm arrow, which clears the 10.5 cm high foot so arrows and friction cones show in the
viewer (1 mm/N, the viewer's former default, hid them inside the foot); HRP-2's whole weight
(~570 N) on one point is 1.7 m, still on screen."""
