"""humanoid_viewer: the embedded web viewer (viser) used when RViz2 is not there: robot, scene,
posture selector, joint sliders, MarkerArray drawing, and replay of recordings."""
