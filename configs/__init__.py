"""The example experiments (dominosim configs lists them; dominosim run NAME runs one). The
package ships this folder as dominosim.configs."""
