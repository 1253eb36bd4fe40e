// Package collision holds obstacles and contact handling (penalty contact
// force fields and detection).
package collision
