package render

import (
	"fmt"

	"github.com/g3n/engine/renderer"
)

// terrainShader is the shader program for terrain chunks: g3n's Phong lighting with
// the diffuse and ambient colours taken from the vertex colour, and distance haze that
// fades far ground into the sky's horizon colour.
const terrainShader = "treadline_terrain"

const terrainVertexSource = `#include <attributes>
uniform mat4 ModelViewMatrix;
uniform mat3 NormalMatrix;
uniform mat4 MVP;
#include <material>
out vec4 Position;
out vec3 Normal;
out vec3 VColor;
void main() {
    Position = ModelViewMatrix * vec4(VertexPosition, 1.0);
    Normal = normalize(NormalMatrix * VertexNormal);
    VColor = VertexColor;
    gl_Position = MVP * vec4(VertexPosition, 1.0);
}
`

// terrainFragmentSource is formatted with the haze colour (r, g, b) and the haze
// start and full distances in meters.
const terrainFragmentSource = `precision highp float;
in vec4 Position;
in vec3 Normal;
in vec3 VColor;
#include <lights>
#include <material>
#include <phong_model>
out vec4 FragColor;
void main() {
    vec3 fragNormal = normalize(Normal);
    vec3 camDir = normalize(-Position.xyz);
    vec3 diffuse = MatDiffuseColor * VColor;
    vec3 ambient = MatAmbientColor * VColor;
    vec3 Ambdiff, Spec;
    phongModel(Position, fragNormal, camDir, ambient, diffuse, Ambdiff, Spec);
    vec3 lit = min(Ambdiff + Spec, vec3(1.0));
    float dist = length(Position.xyz);
    float haze = clamp((dist - %.1f) / (%.1f - %.1f), 0.0, 0.85);
    FragColor = vec4(mix(lit, vec3(%.4f, %.4f, %.4f), haze), 1.0);
}
`

// Haze distances in meters: terrain closer than hazeStart is drawn clear, and the haze
// reaches its strongest at hazeFull.
const (
	hazeStart = 250.0
	hazeFull  = 900.0
)

// addShaders registers Treadline's shader programs with r.
func addShaders(r *renderer.Renderer) {
	h := skyHorizon
	r.AddShader(terrainShader+"_vertex", terrainVertexSource)
	r.AddShader(terrainShader+"_fragment", fmt.Sprintf(terrainFragmentSource,
		hazeStart, hazeFull, hazeStart, h.R, h.G, h.B))
	r.AddProgram(terrainShader, terrainShader+"_vertex", terrainShader+"_fragment")
}
